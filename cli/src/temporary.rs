//! Unlinked temporary files: where large bytes go instead of memory (an inflated library, a
//! file downloaded from a host that does not serve ranges).

use std::fs::File;
use std::sync::atomic::{AtomicU32, Ordering};

/// A new file in the temporary directory, already unlinked: it is gone when closed, whatever
/// happens to this process.
pub fn unlinked_file() -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir();
    for _ in 0..16 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".offload-member-{}-{n}", std::process::id()));
        // Readable by this user alone for the moment it has a name.
        let opened = std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&path);
        if let Ok(file) = opened {
            let _ = std::fs::remove_file(&path);
            return Some(file);
        }
    }
    None
}
