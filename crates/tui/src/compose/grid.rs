//! The grid line of the form: `16:9 9:16 5 10`, every ratio times every duration.

use reel_rules::Ratio;
use reel_rules::text::clean;

/// A grid: every listed ratio times every listed duration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grid {
    pub ratios: Vec<Ratio>,
    pub seconds: Vec<String>,
}

/// The tokens of a grid that are neither a ratio nor whole seconds, each quoted and cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadGrid(Vec<String>);

impl std::fmt::Display for BadGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one} is neither a ratio ({}) nor whole seconds", Ratio::choices()),
            [rest @ .., last] => {
                write!(f, "{} and {last} are neither ratios ({}) nor whole seconds", rest.join(", "), Ratio::choices())
            }
            [] => Ok(()),
        }
    }
}

impl std::error::Error for BadGrid {}

/// Reads `16:9, 9:16 5 10`: ratios and whole numbers of seconds, in any order. Every token
/// that is neither is named in the error.
pub fn parse_grid(text: &str) -> Result<Grid, BadGrid> {
    let mut grid = Grid::default();
    let mut bad = Vec::new();
    for token in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        if let Some(r) = Ratio::parse(token) {
            if !grid.ratios.contains(&r) {
                grid.ratios.push(r);
            }
        } else if token.parse::<i64>().is_ok() {
            if !grid.seconds.iter().any(|s| s == token) {
                grid.seconds.push(token.to_string());
            }
        } else {
            bad.push(format!("\"{}\"", clean(token)));
        }
    }
    if bad.is_empty() { Ok(grid) } else { Err(BadGrid(bad)) }
}
