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
}

impl Loading {
    /// A report of `stage` at `bytes_read` alone.
    pub fn at(stage: &str, bytes_read: u64) -> Loading {
        Loading { stage: stage.into(), bytes_read, members: None, found: None }
    }

    /// This report, with what `before` knew and it does not: reports of bytes read come
    /// between reports of members, and targets found in a member's first bundles before the
    /// member is done. Within one stage the bytes read never go back.
    pub fn after(self, before: &Loading) -> Loading {
        let bytes_read =
            if self.stage == before.stage { self.bytes_read.max(before.bytes_read) } else { self.bytes_read };
        Loading {
            members: self.members.or(before.members),
            found: self.found.or_else(|| before.found.clone()),
            bytes_read,
            ..self
        }
    }
}
