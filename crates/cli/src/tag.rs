//! `reel tag ID keeper [more…]`: tags on a task (one word each, kept lowercase); `--remove`
//! takes them off.

use clap::Args;

use reel_store::review::Change;

#[derive(Debug, Args)]
pub struct TagArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Tags: one word each (no spaces or commas), up to 32 characters; kept lowercase.
    #[arg(required = true, num_args = 1..)]
    pub tags: Vec<String>,
    /// Take these tags off instead.
    #[arg(long)]
    pub remove: bool,
    /// Print the task as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The change the arguments ask for.
pub fn change(args: &TagArgs) -> Change {
    if args.remove { Change::Untag(args.tags.clone()) } else { Change::Tag(args.tags.clone()) }
}
