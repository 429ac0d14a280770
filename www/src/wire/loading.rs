//! How far exploring a file has got, as the worker reports it and the page's progress panel
//! shows it: shared by both sides, and by the page's state, which builds natively for its tests.

use offload::explore::Progress;
use offload::report::runs_on::RunsOn;
use serde::{Deserialize, Serialize};

/// How far exploring a file has got: what the progress panel shows.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Loading {
    pub stage: String,
    /// Bytes of the file read so far.
    pub bytes_read: u64,
    /// In a package: its members explored so far, of those to explore, and their stored bytes.
    pub members: Option<Progress>,
    /// In a package: the targets of the members explored so far, for a first answer to "which
    /// GPUs?" before the whole is read.
    pub found: Option<RunsOn>,
    /// For a file on another site read by ranges: the bytes fetched from it so far, by every
    /// worker (not the offsets explored: a block fetched once and read twice counts once).
    #[serde(default)]
    pub fetched: Option<u64>,
}

impl Loading {
    /// A report of `stage` at `bytes_read` alone.
    pub fn at(stage: &str, bytes_read: u64) -> Loading {
        Loading { stage: stage.into(), bytes_read, members: None, found: None, fetched: None }
    }

    /// A report of the bytes fetched from a remote file alone: it changes nothing else of what
    /// the panel shows ([`Loading::after`]).
    pub fn fetched(fetched: u64) -> Loading {
        Loading { fetched: Some(fetched), ..Loading::default() }
    }

    /// This report, with what `before` knew and it does not: reports of bytes read come
    /// between reports of members, and targets found in a member's first bundles before the
    /// member is done. Within one stage the bytes read never go back.
    pub fn after(self, before: &Loading) -> Loading {
        if self.stage.is_empty() {
            let fetched = self.fetched.max(before.fetched);
            return Loading { fetched, ..before.clone() };
        }
        let fetched = match (self.fetched, before.fetched) {
            (Some(now), Some(then)) => Some(now.max(then)),
            (now, then) => now.or(then),
        };
        let bytes_read =
            if self.stage == before.stage { self.bytes_read.max(before.bytes_read) } else { self.bytes_read };
        Loading {
            members: self.members.or(before.members),
            found: self.found.or_else(|| before.found.clone()),
            fetched,
            bytes_read,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_fetched_change_only_what_they_say() {
        let members = Progress { members_done: 3, members: 10, bytes_done: 5, bytes: 50 };
        let before =
            Loading { members: Some(members), fetched: Some(100), ..Loading::at("reading and decompressing", 7) };
        let after = Loading::fetched(4096).after(&before);
        assert_eq!(after, Loading { fetched: Some(4096), ..before.clone() });
        // A report of fewer bytes (an older one, from another worker) never takes the count back.
        assert_eq!(Loading::fetched(10).after(&after).fetched, Some(4096));
        // A report of the exploration keeps the count it does not carry.
        let next = Loading::at("preparing the views", 9).after(&after);
        assert_eq!(
            (next.stage.as_str(), next.fetched, next.members),
            ("preparing the views", Some(4096), Some(members))
        );
    }
}
