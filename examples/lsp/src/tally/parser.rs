//! Tally's statements and expressions, parsed from its tokens.
//!
//! ```text
//! statement  = "let" name "=" expression | expression
//! expression = term { ("+" | "-") term }
//! term       = factor { ("*" | "/") factor }
//! factor     = "-" factor | atom [ "^" factor ]
//! atom       = number | name | name "(" [ expression { "," expression } ] ")" | "(" expression ")"
//! ```
//!
//! Statements end at a line break or `;`; `#` starts a comment.

use std::ops::Range as Span;

use super::lexer::{Kind, Token, tokens};

/// A name where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    pub text: String,
    pub span: Span<usize>,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(f64, Span<usize>),
    Ref(Name),
    Call {
        function: Name,
        args: Vec<Expr>,
        span: Span<usize>,
    },
    Negate(Box<Expr>, Span<usize>),
    Binary {
        op: char,
        op_span: Span<usize>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}

impl Expr {
    /// Where the whole expression is written.
    pub fn span(&self) -> Span<usize> {
        match self {
            Expr::Number(_, span) | Expr::Call { span, .. } | Expr::Negate(_, span) => span.clone(),
            Expr::Ref(name) => name.span.clone(),
            Expr::Binary { lhs, rhs, .. } => lhs.span().start..rhs.span().end,
        }
    }
}

/// A statement: a binding, or an expression whose value is shown.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    Let {
        name: Name,
        value: Expr,
        span: Span<usize>,
    },
    Expr(Expr),
}

/// A syntax error.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub span: Span<usize>,
    pub message: String,
}

/// A whole file: what parsed, and what did not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    pub statements: Vec<Statement>,
    pub errors: Vec<SyntaxError>,
}

/// Parses `text`. A statement with an error is left out and the parse goes
/// on at the next statement, so one typo costs one diagnostic.
pub fn parse(text: &str) -> Program {
    let tokens: Vec<Token> = tokens(text)
        .into_iter()
        .filter(|token| token.kind != Kind::Comment)
        .collect();
    let mut parser = Parser {
        text,
        tokens: &tokens,
        at: 0,
    };
    let mut program = Program::default();
    while parser.at < tokens.len() {
        if parser.peek() == Some(Kind::End) {
            parser.at += 1;
            continue;
        }
        match parser.statement() {
            Ok(statement) => program.statements.push(statement),
            Err(error) => {
                program.errors.push(error);
                while parser.peek().is_some_and(|kind| kind != Kind::End) {
                    parser.at += 1;
                }
            }
        }
    }
    program
}

struct Parser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
}

type Parsed<T> = Result<T, SyntaxError>;

impl Parser<'_> {
    fn peek(&self) -> Option<Kind> {
        self.tokens.get(self.at).map(|token| token.kind)
    }

    fn next(&mut self) -> Option<&Token> {
        let token = self.tokens.get(self.at)?;
        self.at += 1;
        Some(token)
    }

    fn eat(&mut self, punct: char) -> Option<Span<usize>> {
        let token = self.tokens.get(self.at)?;
        (token.kind == Kind::Punct(punct)).then(|| {
            self.at += 1;
            token.span.clone()
        })
    }

    /// An error at the current token (or just past the last one).
    fn error(&self, message: impl Into<String>) -> SyntaxError {
        let span = match self.tokens.get(self.at) {
            Some(token) => token.span.clone(),
            None => self.text.len()..self.text.len(),
        };
        SyntaxError {
            span,
            message: message.into(),
        }
    }

    fn statement(&mut self) -> Parsed<Statement> {
        let statement = match self.peek() {
            Some(Kind::Let) => {
                let start = self.next().map_or(0, |token| token.span.start);
                let name = self.name("a name after `let`")?;
                if self.eat('=').is_none() {
                    return Err(self.error(format!("expected `=` after `let {}`", name.text)));
                }
                let value = self.expression()?;
                let span = start..value.span().end;
                Statement::Let { name, value, span }
            }
            _ => Statement::Expr(self.expression()?),
        };
        match self.peek() {
            None | Some(Kind::End) => Ok(statement),
            Some(Kind::Stray(c)) => Err(self.error(format!("`{c}` is not part of Tally"))),
            Some(_) => Err(self.error("expected the end of the statement")),
        }
    }

    fn name(&mut self, expected: &str) -> Parsed<Name> {
        match self.tokens.get(self.at) {
            Some(token) if token.kind == Kind::Name => {
                self.at += 1;
                Ok(Name {
                    text: self.text[token.span.clone()].to_owned(),
                    span: token.span.clone(),
                })
            }
            _ => Err(self.error(format!("expected {expected}"))),
        }
    }

    fn expression(&mut self) -> Parsed<Expr> {
        self.binary(&['+', '-'], Self::term)
    }

    fn term(&mut self) -> Parsed<Expr> {
        self.binary(&['*', '/'], Self::factor)
    }

    /// Operands joined by the left-associative operators `ops`.
    fn binary(&mut self, ops: &[char], operand: fn(&mut Self) -> Parsed<Expr>) -> Parsed<Expr> {
        let mut lhs = operand(self)?;
        while let Some(Kind::Punct(op)) = self.peek()
            && ops.contains(&op)
        {
            let op_span = self
                .next()
                .map(|token| token.span.clone())
                .unwrap_or_default();
            let rhs = operand(self)?;
            lhs = Expr::Binary {
                op,
                op_span,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            };
        }
        Ok(lhs)
    }

    fn factor(&mut self) -> Parsed<Expr> {
        if let Some(minus) = self.eat('-') {
            let operand = self.factor()?;
            let span = minus.start..operand.span().end;
            return Ok(Expr::Negate(Box::new(operand), span));
        }
        let base = self.atom()?;
        match self.eat('^') {
            // Right-associative: 2^3^2 is 2^(3^2).
            Some(op_span) => Ok(Expr::Binary {
                op: '^',
                op_span,
                lhs: Box::new(base),
                rhs: Box::new(self.factor()?),
            }),
            None => Ok(base),
        }
    }

    fn atom(&mut self) -> Parsed<Expr> {
        let Some(token) = self.tokens.get(self.at) else {
            return Err(self.error("expected a value"));
        };
        match token.kind {
            Kind::Number(value) => {
                self.at += 1;
                Ok(Expr::Number(value, token.span.clone()))
            }
            Kind::Name => {
                let name = self.name("a name")?;
                if self.eat('(').is_none() {
                    return Ok(Expr::Ref(name));
                }
                let args = self.arguments()?;
                let end = self.tokens[self.at - 1].span.end;
                let span = name.span.start..end;
                Ok(Expr::Call {
                    function: name,
                    args,
                    span,
                })
            }
            Kind::Punct('(') => {
                let open = token.span.start;
                self.at += 1;
                let inner = self.expression()?;
                let Some(close) = self.eat(')') else {
                    return Err(self.error("expected `)`"));
                };
                // Parentheses only group: keep the inner expression, with
                // its span widened so a hover on them finds it.
                Ok(match inner {
                    Expr::Number(value, _) => Expr::Number(value, open..close.end),
                    other => other,
                })
            }
            Kind::Stray(c) => Err(self.error(format!("`{c}` is not part of Tally"))),
            _ => Err(self.error("expected a value")),
        }
    }

    /// The arguments of a call, after its `(`, through its `)`.
    fn arguments(&mut self) -> Parsed<Vec<Expr>> {
        let mut args = Vec::new();
        if self.eat(')').is_some() {
            return Ok(args);
        }
        loop {
            args.push(self.expression()?);
            if self.eat(')').is_some() {
                return Ok(args);
            }
            if self.eat(',').is_none() {
                return Err(self.error("expected `,` or `)`"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        let program = parse("1 - 2 - 3 * 2 ^ 3 ^ 2");
        assert!(program.errors.is_empty());
        let Statement::Expr(Expr::Binary {
            op: '-', lhs, rhs, ..
        }) = &program.statements[0]
        else {
            panic!("{program:?}");
        };
        assert!(
            matches!(**lhs, Expr::Binary { op: '-', .. }),
            "left-associative"
        );
        let Expr::Binary {
            op: '*',
            rhs: power,
            ..
        } = &**rhs
        else {
            panic!("{rhs:?}");
        };
        let Expr::Binary {
            op: '^',
            rhs: inner,
            ..
        } = &**power
        else {
            panic!("{power:?}");
        };
        assert!(
            matches!(**inner, Expr::Binary { op: '^', .. }),
            "right-associative"
        );
    }

    #[test]
    fn one_error_per_broken_statement_and_the_rest_parses() {
        let program = parse("let = 2\nlet x = (1 + \nlet y = 3; y $ 2\nmax(1,2)");
        let messages: Vec<_> = program.errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "expected a name after `let`",
                "expected a value",
                "`$` is not part of Tally"
            ]
        );
        assert_eq!(program.statements.len(), 2, "`let y = 3` and `max(1,2)`");
    }

    #[test]
    fn spans_are_bytes_of_the_source() {
        let text = "let 価格 = -x";
        let program = parse(text);
        let Statement::Let { name, value, span } = &program.statements[0] else {
            panic!();
        };
        assert_eq!(&text[name.span.clone()], "価格");
        assert_eq!(&text[value.span()], "-x");
        assert_eq!(&text[span.clone()], text);
    }
}
