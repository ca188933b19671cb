//! What a Tally file means: its bindings, what each name refers to, every value, every problem.

use std::ops::Range as Span;

use super::parser::{Expr, Name, Statement, parse};

/// A function every file can call.
#[derive(Debug)]
pub struct Builtin {
    pub name: &'static str,
    /// How many arguments it takes: at least, at most.
    pub arity: (usize, usize),
    pub signature: &'static str,
    pub docs: &'static str,
    apply: fn(&[f64]) -> f64,
}

impl PartialEq for Builtin {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Tally's functions.
pub static BUILTINS: [Builtin; 5] = [
    Builtin {
        name: "sqrt",
        arity: (1, 1),
        signature: "sqrt(x)",
        docs: "The square root of `x`.",
        apply: |args| args[0].sqrt(),
    },
    Builtin {
        name: "abs",
        arity: (1, 1),
        signature: "abs(x)",
        docs: "`x` without its sign.",
        apply: |args| args[0].abs(),
    },
    Builtin {
        name: "round",
        arity: (1, 1),
        signature: "round(x)",
        docs: "`x` rounded to the nearest whole number, halves away from zero.",
        apply: |args| args[0].round(),
    },
    Builtin {
        name: "min",
        arity: (1, usize::MAX),
        signature: "min(x, ...)",
        docs: "The least of its arguments.",
        apply: |args| args.iter().copied().fold(f64::INFINITY, f64::min),
    },
    Builtin {
        name: "max",
        arity: (1, usize::MAX),
        signature: "max(x, ...)",
        docs: "The greatest of its arguments.",
        apply: |args| args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    },
];

/// A `let` binding.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub name: String,
    /// The name where the `let` writes it.
    pub name_span: Span<usize>,
    /// The whole `let` statement.
    pub span: Span<usize>,
    /// Its value; `None` when it cannot be computed (an error on the way).
    pub value: Option<f64>,
}

/// What a name used in an expression stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// The binding at this index of [`Analysis::bindings`].
    Binding(usize),
    /// A builtin function.
    Builtin(&'static Builtin),
    /// Nothing defined before it.
    Unknown,
}

/// A name used in an expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub span: Span<usize>,
    pub target: Target,
}

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// Which problem it is, for a server to filter on its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    Syntax,
    Undefined,
    Evaluation,
    Shadowing,
    Unused,
}

/// Something wrong, or worth a look, at a place in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub span: Span<usize>,
    pub kind: ProblemKind,
    pub severity: Severity,
    pub message: String,
    /// Another place the message is about (the shadowed binding).
    pub related: Option<Span<usize>>,
}

/// What is under a byte offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Symbol {
    /// A binding's name, where it is defined.
    Definition(usize),
    /// A name in an expression, by index into [`Analysis::references`].
    Use(usize),
}

/// Everything the server answers from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub bindings: Vec<Binding>,
    pub references: Vec<Reference>,
    pub problems: Vec<Problem>,
    /// The value of each statement that is a bare expression, with its span.
    pub results: Vec<(Span<usize>, Option<f64>)>,
}

impl Analysis {
    /// Analyses the text of a whole file.
    pub fn of(text: &str) -> Analysis {
        let program = parse(text);
        let mut analysis = Analysis::default();
        for error in program.errors {
            analysis.problem(
                error.span,
                ProblemKind::Syntax,
                Severity::Error,
                error.message,
            );
        }
        for statement in &program.statements {
            match statement {
                Statement::Let { name, value, span } => {
                    let value = analysis.evaluate(value);
                    analysis.bind(name, span.clone(), value);
                }
                Statement::Expr(expr) => {
                    let value = analysis.evaluate(expr);
                    analysis.results.push((expr.span(), value));
                }
            }
        }
        analysis.find_unused();
        analysis.problems.sort_by_key(|problem| problem.span.start);
        analysis
    }

    /// The binding or the use of a name at `offset` (a cursor just after
    /// a name is on it, as editors place it).
    pub fn symbol_at(&self, offset: usize) -> Option<Symbol> {
        let on = |span: &Span<usize>| span.start <= offset && offset <= span.end;
        if let Some(index) = self.references.iter().position(|r| on(&r.span)) {
            return Some(Symbol::Use(index));
        }
        self.bindings
            .iter()
            .position(|binding| on(&binding.name_span))
            .map(Symbol::Definition)
    }

    /// The binding a symbol stands for, if it stands for one.
    pub fn binding_of(&self, symbol: Symbol) -> Option<usize> {
        match symbol {
            Symbol::Definition(index) => Some(index),
            Symbol::Use(index) => match self.references[index].target {
                Target::Binding(binding) => Some(binding),
                _ => None,
            },
        }
    }

    /// Every place binding `index` is named: its definition, then its uses.
    pub fn occurrences(&self, index: usize) -> Vec<Span<usize>> {
        let uses = self
            .references
            .iter()
            .filter(|reference| reference.target == Target::Binding(index))
            .map(|reference| reference.span.clone());
        std::iter::once(self.bindings[index].name_span.clone())
            .chain(uses)
            .collect()
    }

    /// The bindings a name written at `offset` could use: those whose `let`
    /// ends before it, the latest of each name.
    pub fn visible_at(&self, offset: usize) -> Vec<&Binding> {
        let mut visible: Vec<&Binding> = Vec::new();
        for binding in self.bindings.iter().filter(|b| b.span.end < offset) {
            match visible.iter_mut().find(|seen| seen.name == binding.name) {
                Some(seen) => *seen = binding,
                None => visible.push(binding),
            }
        }
        visible
    }

    fn problem(
        &mut self,
        span: Span<usize>,
        kind: ProblemKind,
        severity: Severity,
        message: String,
    ) {
        self.problems.push(Problem {
            span,
            kind,
            severity,
            message,
            related: None,
        });
    }

    fn bind(&mut self, name: &Name, span: Span<usize>, value: Option<f64>) {
        if let Some(earlier) = self.lookup(&name.text) {
            let earlier = self.bindings[earlier].name_span.clone();
            self.problems.push(Problem {
                span: name.span.clone(),
                kind: ProblemKind::Shadowing,
                severity: Severity::Warning,
                message: format!("`{}` shadows an earlier binding", name.text),
                related: Some(earlier),
            });
        }
        self.bindings.push(Binding {
            name: name.text.clone(),
            name_span: name.span.clone(),
            span,
            value,
        });
    }

    /// The latest binding of `name` so far.
    fn lookup(&self, name: &str) -> Option<usize> {
        self.bindings
            .iter()
            .rposition(|binding| binding.name == name)
    }

    fn find_unused(&mut self) {
        for (index, binding) in self.bindings.iter().enumerate() {
            let used = self
                .references
                .iter()
                .any(|reference| reference.target == Target::Binding(index));
            if !used {
                self.problems.push(Problem {
                    span: binding.name_span.clone(),
                    kind: ProblemKind::Unused,
                    severity: Severity::Warning,
                    message: format!("`{}` is never used", binding.name),
                    related: None,
                });
            }
        }
    }

    /// The value of `expr`, recording each name it uses and each problem.
    fn evaluate(&mut self, expr: &Expr) -> Option<f64> {
        match expr {
            Expr::Number(value, _) => Some(*value),
            Expr::Ref(name) => self.reference(name),
            Expr::Negate(operand, _) => self.evaluate(operand).map(|value| -value),
            Expr::Call {
                function,
                args,
                span,
            } => {
                let values: Vec<Option<f64>> = args.iter().map(|arg| self.evaluate(arg)).collect();
                self.call(function, values, span.clone())
            }
            Expr::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let (lhs, rhs) = (self.evaluate(lhs), self.evaluate(rhs));
                let (lhs, rhs) = (lhs?, rhs?);
                let value = match op {
                    '+' => lhs + rhs,
                    '-' => lhs - rhs,
                    '*' => lhs * rhs,
                    '/' if rhs == 0.0 => {
                        let message = "division by zero".to_owned();
                        self.problem(
                            op_span.clone(),
                            ProblemKind::Evaluation,
                            Severity::Error,
                            message,
                        );
                        return None;
                    }
                    '/' => lhs / rhs,
                    _ => lhs.powf(rhs),
                };
                self.finite(value, expr.span())
            }
        }
    }

    fn reference(&mut self, name: &Name) -> Option<f64> {
        let (target, value) = match self.lookup(&name.text) {
            Some(index) => (Target::Binding(index), self.bindings[index].value),
            None => {
                let (target, message) = match builtin(&name.text) {
                    Some(builtin) => (
                        Target::Builtin(builtin),
                        format!(
                            "`{}` is a function: call it as `{}`",
                            name.text, builtin.signature
                        ),
                    ),
                    None => (Target::Unknown, format!("`{}` is not defined", name.text)),
                };
                self.problem(
                    name.span.clone(),
                    ProblemKind::Undefined,
                    Severity::Error,
                    message,
                );
                (target, None)
            }
        };
        self.references.push(Reference {
            span: name.span.clone(),
            target,
        });
        value
    }

    fn call(&mut self, function: &Name, args: Vec<Option<f64>>, span: Span<usize>) -> Option<f64> {
        let Some(builtin) = builtin(&function.text) else {
            let message = match self.lookup(&function.text) {
                Some(_) => format!("`{}` is a number, not a function", function.text),
                None => format!("there is no function `{}`", function.text),
            };
            self.problem(
                function.span.clone(),
                ProblemKind::Undefined,
                Severity::Error,
                message,
            );
            return None;
        };
        self.references.push(Reference {
            span: function.span.clone(),
            target: Target::Builtin(builtin),
        });
        let (least, most) = builtin.arity;
        if args.len() < least || args.len() > most {
            let message = format!(
                "`{}` takes {}, not {} arguments",
                builtin.name,
                arity_text(builtin.arity),
                args.len()
            );
            self.problem(span, ProblemKind::Evaluation, Severity::Error, message);
            return None;
        }
        let args: Option<Vec<f64>> = args.into_iter().collect();
        let value = (builtin.apply)(&args?);
        self.finite(value, span)
    }

    /// `value`, or a problem where it stopped being a number.
    fn finite(&mut self, value: f64, span: Span<usize>) -> Option<f64> {
        if value.is_finite() {
            return Some(value);
        }
        let message = match value.is_nan() {
            true => "the result is not a number".to_owned(),
            false => "the result is too large".to_owned(),
        };
        self.problem(span, ProblemKind::Evaluation, Severity::Error, message);
        None
    }
}

/// The builtin named `name`.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|builtin| builtin.name == name)
}

fn arity_text((least, most): (usize, usize)) -> String {
    match (least, most) {
        (1, 1) => "one argument".to_owned(),
        (least, usize::MAX) => format!("at least {least}"),
        (least, most) => format!("{least} to {most}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<String> {
        Analysis::of(text)
            .problems
            .into_iter()
            .map(|problem| format!("{}: {}", &text[problem.span], problem.message))
            .collect()
    }

    #[test]
    fn values_flow_through_bindings() {
        let analysis = Analysis::of("let 🍎 = 3\nlet 価格 = 🍎 * 2 + sqrt(16)\n価格 ^ 2 / 4");
        let values: Vec<_> = analysis.bindings.iter().map(|b| b.value).collect();
        assert_eq!(values, [Some(3.0), Some(10.0)]);
        assert_eq!(analysis.results[0].1, Some(25.0));
        assert!(analysis.problems.is_empty(), "{:?}", analysis.problems);
    }

    #[test]
    fn each_problem_where_it_is() {
        assert_eq!(
            messages(
                "let a = b + 1\nlet c = 1 / 0\nlet d = sqrt(1, 2) + max\nlet a = sqrt(-1)\nfoo(a)"
            ),
            [
                "a: `a` is never used",
                "b: `b` is not defined",
                "c: `c` is never used",
                "/: division by zero",
                "d: `d` is never used",
                "sqrt(1, 2): `sqrt` takes one argument, not 2 arguments",
                "max: `max` is a function: call it as `max(x, ...)`",
                "a: `a` shadows an earlier binding",
                "sqrt(-1): the result is not a number",
                "foo: there is no function `foo`",
            ]
        );
    }

    #[test]
    fn names_resolve_to_the_latest_binding_before_them() {
        let text = "let x = 1\nlet y = x\nlet x = x + 1\nx";
        let analysis = Analysis::of(text);
        let second = 2;
        let occurrences: Vec<&str> = analysis
            .occurrences(second)
            .into_iter()
            .map(|span| &text[span])
            .collect();
        assert_eq!(
            occurrences,
            ["x", "x"],
            "its definition and the last line's use"
        );
        assert_eq!(
            analysis.occurrences(0).len(),
            3,
            "`let x`, `y = x`, and `x + 1`"
        );
        let at_end = analysis.symbol_at(text.len()).unwrap();
        assert_eq!(analysis.binding_of(at_end), Some(second));
        let visible: Vec<_> = analysis
            .visible_at(text.len())
            .iter()
            .map(|b| b.span.start)
            .collect();
        assert_eq!(
            visible,
            [text.find("let x = x").unwrap(), text.find("let y").unwrap()]
        );
    }

    #[test]
    fn the_sample_file_shows_each_kind_of_problem_once() {
        let sample = include_str!("../../sample.tally");
        assert_eq!(
            messages(sample),
            [
                "unused: `unused` is never used",
                "qty: `qty` shadows an earlier binding",
                "/: division by zero",
                "tip: `tip` is not defined",
            ]
        );
        assert_eq!(
            Analysis::of(sample).results[0].1,
            Some(16.0),
            "max(café, qty, 4) ^ 2"
        );
    }
}
