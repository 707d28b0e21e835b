//! Prompt templates: `{red|blue|green}` expands to each alternative, `{subject}` to each value
//! of a variable (a column of the row or `--var`); every combination, in order. `{{` and `}}`
//! are literal braces.

use thiserror::Error;

/// Most prompts one template may expand to, so a slip cannot make millions of tasks.
pub const MAX_EXPANSION: usize = 10_000;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TemplateError {
    #[error("\"{{\" at character {0} is never closed (write {{{{ for a literal brace)")]
    Unclosed(usize),
    #[error("\"}}\" at character {0} closes nothing (write }}}} for a literal brace)")]
    StrayClose(usize),
    #[error("{{{0}}} has no values: add a column \"{0}\" or --var {0}=…")]
    Unknown(String),
    #[error("{{{0}}} is neither alternatives ({{a|b}}) nor a variable name")]
    NotAName(String),
    #[error("expands to more than {MAX_EXPANSION} prompts")]
    TooMany,
}

#[derive(Debug)]
enum Piece {
    Text(String),
    /// Index into the dimensions.
    Slot(usize),
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// A template parsed, its prompts not made yet: how many there are is known first, so that a
/// caller can refuse an expansion too large before any of it is built.
#[derive(Debug)]
pub struct Expansion {
    pieces: Vec<Piece>,
    dims: Vec<Vec<String>>,
    total: usize,
}

impl Expansion {
    /// How many prompts the template expands to (at most [`MAX_EXPANSION`]).
    pub fn len(&self) -> usize {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Every prompt, in order, made one at a time.
    pub fn prompts(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.total).map(|n| self.prompt(n))
    }

    /// The `n`th prompt. The last dimension varies fastest, as nested loops written left to
    /// right would.
    fn prompt(&self, n: usize) -> String {
        let mut pick = vec![0; self.dims.len()];
        let mut rest = n;
        for (d, dim) in self.dims.iter().enumerate().rev() {
            pick[d] = rest % dim.len();
            rest /= dim.len();
        }
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.as_str(),
                Piece::Slot(d) => self.dims[*d][pick[*d]].as_str(),
            })
            .collect()
    }
}

/// Every prompt `template` expands to; `values` gives a variable's values, `None` when it has
/// none. The same variable used twice takes the same value in each prompt.
pub fn expand(template: &str, values: impl Fn(&str) -> Option<Vec<String>>) -> Result<Vec<String>, TemplateError> {
    parse(template, values).map(|e| e.prompts().collect())
}

/// `template` parsed and counted, as [`expand`] takes it, without making its prompts.
pub fn parse(template: &str, values: impl Fn(&str) -> Option<Vec<String>>) -> Result<Expansion, TemplateError> {
    let mut pieces = Vec::new();
    let mut dims: Vec<Vec<String>> = Vec::new();
    let mut names: Vec<(String, usize)> = Vec::new();
    let mut text = String::new();
    let chars: Vec<char> = template.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('{', Some('{')) | ('}', Some('}')) => {
                text.push(chars[i]);
                i += 2;
            }
            ('}', _) => return Err(TemplateError::StrayClose(i + 1)),
            ('{', _) => {
                let close = chars[i + 1..].iter().position(|&c| c == '}').ok_or(TemplateError::Unclosed(i + 1))?;
                let inner: String = chars[i + 1..i + 1 + close].iter().collect();
                let dim = if inner.contains('|') {
                    dims.push(inner.split('|').map(str::to_string).collect());
                    dims.len() - 1
                } else if let Some((_, d)) = names.iter().find(|(n, _)| *n == inner.trim()) {
                    *d
                } else if is_name(inner.trim()) {
                    let name = inner.trim().to_string();
                    let vals = values(&name).filter(|v| !v.is_empty()).ok_or(TemplateError::Unknown(name.clone()))?;
                    dims.push(vals);
                    names.push((name, dims.len() - 1));
                    dims.len() - 1
                } else {
                    return Err(TemplateError::NotAName(inner));
                };
                pieces.push(Piece::Text(std::mem::take(&mut text)));
                pieces.push(Piece::Slot(dim));
                i += close + 2;
            }
            (c, _) => {
                text.push(c);
                i += 1;
            }
        }
    }
    pieces.push(Piece::Text(text));
    let total = dims.iter().try_fold(1usize, |n, d| n.checked_mul(d.len()).filter(|&n| n <= MAX_EXPANSION));
    let total = total.ok_or(TemplateError::TooMany)?;
    Ok(Expansion { pieces, dims, total })
}

/// `--var NAME=a,b` or `--var NAME=@FILE` (the file's lines): the name and its source.
pub fn parse_var(text: &str) -> Result<(String, VarSource), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| format!("--var \"{text}\" is not NAME=a,b or NAME=@FILE"))?;
    let name = name.trim();
    if !is_name(name) {
        return Err(format!("--var \"{text}\": \"{name}\" is not a variable name"));
    }
    let source = match value.strip_prefix('@') {
        Some(path) => VarSource::File(path.to_string()),
        None => VarSource::Values(value.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect()),
    };
    Ok((name.to_string(), source))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarSource {
    Values(Vec<String>),
    File(String),
}

/// The values of a variable file: one a line, blank lines and `#` comments left out.
pub fn file_values(text: &str) -> Vec<String> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<Vec<String>> {
        match name {
            "subject" => Some(vec!["fox".into(), "owl".into()]),
            "none" => Some(vec![]),
            _ => None,
        }
    }

    #[test]
    fn expansions() {
        let cases: [(&str, Result<&[&str], TemplateError>); 9] = [
            ("a plain prompt", Ok(&["a plain prompt"])),
            ("a {red|blue} car", Ok(&["a red car", "a blue car"])),
            ("{a|b}{1|2}", Ok(&["a1", "a2", "b1", "b2"])),
            ("a {subject} and a {subject}", Ok(&["a fox and a fox", "a owl and a owl"])),
            ("{{literal}} {subject}", Ok(&["{literal} fox", "{literal} owl"])),
            ("a {red car", Err(TemplateError::Unclosed(3))),
            ("a } car", Err(TemplateError::StrayClose(3))),
            ("a {colour} car", Err(TemplateError::Unknown("colour".into()))),
            ("a {none} car", Err(TemplateError::Unknown("none".into()))),
        ];
        for (template, want) in cases {
            let got = expand(template, vars);
            let want = want.map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(got, want, "{template}");
        }
        assert_eq!(expand("a {red car} b", vars), Err(TemplateError::NotAName("red car".into())));
        let huge = "{a|b|c|d|e|f|g|h|i|j}".repeat(5);
        assert_eq!(expand(&huge, vars), Err(TemplateError::TooMany));
    }

    #[test]
    fn a_template_is_counted_before_any_prompt_is_made() {
        let cases = [("plain", 1), ("{a|b}", 2), ("{a|b} {subject} {1|2|3}", 12), ("{a|b}{{x}}", 2)];
        for (template, n) in cases {
            let e = parse(template, vars).expect("parses");
            assert_eq!((e.len(), e.prompts().count()), (n, n), "{template}");
        }
        let widest = format!("{{{}}}", (0..MAX_EXPANSION).map(|i| i.to_string()).collect::<Vec<_>>().join("|"));
        assert_eq!(parse(&widest, vars).map(|e| e.len()), Ok(MAX_EXPANSION));
        assert_eq!(parse(&format!("{widest}{{a|b}}"), vars).map(|e| e.len()), Err(TemplateError::TooMany));
    }

    #[test]
    fn var_options() {
        assert_eq!(
            parse_var("subject=fox, owl"),
            Ok(("subject".into(), VarSource::Values(vec!["fox".into(), "owl".into()])))
        );
        assert_eq!(parse_var("subject=@s.txt"), Ok(("subject".into(), VarSource::File("s.txt".into()))));
        assert!(parse_var("subject").is_err());
        assert!(parse_var("a b=c").is_err());
        assert_eq!(file_values("fox\n\n# no\n owl \n"), ["fox", "owl"]);
    }
}
