//! The editor's settings for Tally: the `tally` section of `workspace/configuration`.

use serde_json::Value;

/// What a user can set, in the editor's `tally` section.
///
/// ```
/// use typed_rpc_lsp::tally::Settings;
///
/// let (settings, problems) = Settings::from_json(&serde_json::json!({"precision": 2, "unusedWarnings": false}));
/// assert_eq!(settings, Settings { precision: 2, unused_warnings: false });
/// assert!(problems.is_empty());
///
/// let (settings, problems) = Settings::from_json(&serde_json::json!({"precision": "many"}));
/// assert_eq!(settings, Settings::default());
/// assert_eq!(problems, ["`tally.precision` must be a whole number from 0 to 12; using 4"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The most digits after the point that hovers and symbols show.
    pub precision: u32,
    /// Whether a binding that is never used gets a warning.
    pub unused_warnings: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            precision: 4,
            unused_warnings: true,
        }
    }
}

/// The most digits after the point a user may ask for.
const MAX_PRECISION: u64 = 12;

impl Settings {
    /// The settings in a `tally` section, with a sentence for each value
    /// that could not be used (its default is kept). `null` or a missing
    /// member means the default.
    pub fn from_json(section: &Value) -> (Settings, Vec<String>) {
        let defaults = Settings::default();
        let mut settings = defaults;
        let mut problems = Vec::new();
        match section.get("precision") {
            None | Some(Value::Null) => {}
            Some(value) => match value.as_u64().filter(|&digits| digits <= MAX_PRECISION) {
                Some(digits) => settings.precision = digits as u32,
                None => problems.push(format!(
                    "`tally.precision` must be a whole number from 0 to {MAX_PRECISION}; using {}",
                    defaults.precision
                )),
            },
        }
        match section.get("unusedWarnings") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(on)) => settings.unused_warnings = *on,
            Some(_) => problems.push(format!(
                "`tally.unusedWarnings` must be true or false; using {}",
                defaults.unused_warnings
            )),
        }
        (settings, problems)
    }

    /// `value` with at most [`precision`](Self::precision) digits after
    /// the point, trailing zeros left out: `12.5`, `0.3333`, `-2`.
    pub fn show(&self, value: f64) -> String {
        let text = format!("{value:.*}", self.precision as usize);
        let text = match text.contains('.') {
            true => text.trim_end_matches('0').trim_end_matches('.'),
            false => &text,
        };
        match text {
            "-0" => "0".to_owned(),
            text => text.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_shown_to_the_precision_asked() {
        let settings = Settings {
            precision: 4,
            unused_warnings: true,
        };
        assert_eq!(settings.show(12.5), "12.5");
        assert_eq!(settings.show(1.0 / 3.0), "0.3333");
        assert_eq!(settings.show(-2.0), "-2");
        assert_eq!(settings.show(-0.00001), "0");
        let whole = Settings {
            precision: 0,
            ..settings
        };
        assert_eq!(whole.show(2.5), "2");
        assert_eq!(whole.show(120.0), "120");
    }
}
