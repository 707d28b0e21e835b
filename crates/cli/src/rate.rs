//! `reel rate ID 4`: a task's rating, 1 to 5; `0` or `--clear` removes it.

use clap::Args;

use reel_store::review::Change;

#[derive(Debug, Args)]
pub struct RateArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// 1 (worst) to 5 (best); 0 removes the rating.
    #[arg(required_unless_present = "clear", value_parser = clap::value_parser!(u8).range(0..=5))]
    pub rating: Option<u8>,
    /// Remove the rating.
    #[arg(long, conflicts_with = "rating")]
    pub clear: bool,
    /// Print the task as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The change the arguments ask for: 0 and `--clear` remove the rating.
pub fn change(args: &RateArgs) -> Change {
    Change::Rate(args.rating.filter(|r| *r != 0 && !args.clear))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: RateArgs,
    }

    #[test]
    fn the_arguments_give_the_rating_or_its_removal() {
        let cases: &[(&[&str], Option<Change>)] = &[
            (&["12", "4"], Some(Change::Rate(Some(4)))),
            (&["12", "5"], Some(Change::Rate(Some(5)))),
            (&["12", "0"], Some(Change::Rate(None))),
            (&["12", "--clear"], Some(Change::Rate(None))),
            (&["12", "6"], None),
            (&["12"], None),
            (&["12", "4", "--clear"], None),
            (&["12", "x"], None),
        ];
        for (argv, want) in cases {
            let parsed = Cli::try_parse_from(std::iter::once("rate").chain(argv.iter().copied()));
            assert_eq!(parsed.ok().map(|c| change(&c.args)), *want, "{argv:?}");
        }
    }
}
