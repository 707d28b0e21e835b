//! `reel pick ID`: the task is the winner of its batch or comparison; `--clear` takes it back.

use clap::Args;

use reel_store::review::Change;

#[derive(Debug, Args)]
pub struct PickArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Take the pick back.
    #[arg(long)]
    pub clear: bool,
    /// Print the task as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The change the arguments ask for.
pub fn change(args: &PickArgs) -> Change {
    Change::Pick(!args.clear)
}
