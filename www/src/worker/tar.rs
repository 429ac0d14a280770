//! POSIX tar (ustar, with pax extended headers where ustar falls short), written and read back
//! for the "Download all images" tar. Deterministic: mode 0644, owner 0, time 0, no user names.
//!
//! Layout: each file is a 512-byte header, then its bytes padded with zeros to a multiple of
//! 512; the archive ends with two zero blocks.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 100 | name, NUL-padded |
//! | 100 | 8 | mode, octal |
//! | 108 | 8 | uid, octal |
//! | 116 | 8 | gid, octal |
//! | 124 | 12 | size, octal (at most 8 GiB - 1) |
//! | 136 | 12 | mtime, octal |
//! | 148 | 8 | checksum: sum of the header's bytes with this field as spaces; 6 octal digits, NUL, space |
//! | 156 | 1 | type: `0` file, `x` pax extended header for the next file |
//! | 157 | 100 | link name |
//! | 257 | 6 | `ustar\0` |
//! | 263 | 2 | `00` |
//! | 265 | 32, 32 | user and group names |
//! | 329 | 8, 8 | device numbers |
//! | 345 | 155 | prefix (unused: our names have no directories) |
//!
//! A name longer than 100 bytes, or a size past the octal field, goes in a pax extended header
//! (`x`) before the file: records `<length> path=<name>\n`, `<length> size=<decimal>\n`, where
//! the length counts the whole record, its own digits included.

const BLOCK: usize = 512;
const NAME_LEN: usize = 100;
/// The largest size the 11 octal digits of the size field hold.
const MAX_OCTAL_SIZE: u64 = 0o77777777777;

/// A tar being written, file by file.
#[derive(Default)]
pub struct TarWriter {
    out: Vec<u8>,
}

impl TarWriter {
    pub fn new() -> TarWriter {
        TarWriter::default()
    }

    /// Adds a regular file. Names are plain file names: empty names, `/`, `\`, NUL and the
    /// names `.` and `..` are refused, so that extracting never writes outside its directory.
    pub fn add(&mut self, name: &str, data: &[u8]) -> Result<(), String> {
        check_name(name)?;
        let size = data.len() as u64;
        let long_name = name.len() > NAME_LEN;
        if long_name || size > MAX_OCTAL_SIZE {
            let mut records = Vec::new();
            if long_name {
                records.extend(pax_record("path", name));
            }
            if size > MAX_OCTAL_SIZE {
                records.extend(pax_record("size", &size.to_string()));
            }
            let pax_name = format!("PaxHeaders/{}", truncate_utf8(name, NAME_LEN - "PaxHeaders/".len()));
            self.out.extend(header(&pax_name, records.len() as u64, b'x'));
            self.append_padded(&records);
        }
        self.out.extend(header(truncate_utf8(name, NAME_LEN), size.min(MAX_OCTAL_SIZE), b'0'));
        self.append_padded(data);
        Ok(())
    }

    fn append_padded(&mut self, data: &[u8]) {
        self.out.extend_from_slice(data);
        let rest = data.len() % BLOCK;
        if rest != 0 {
            self.out.resize(self.out.len() + BLOCK - rest, 0);
        }
    }

    /// The finished tar: what was added, then two zero blocks.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.resize(self.out.len() + 2 * BLOCK, 0);
        self.out
    }
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(format!("a tar member needs a plain file name (no path, not `.` or `..`), found {name:?}"));
    }
    Ok(())
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn truncate_utf8(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `<length> <key>=<value>\n`, the length counting the whole record including its digits.
fn pax_record(key: &str, value: &str) -> Vec<u8> {
    let rest = key.len() + value.len() + 3; // space, '=', newline
    let mut length = rest + 1;
    while length != rest + length.to_string().len() {
        length = rest + length.to_string().len();
    }
    format!("{length} {key}={value}\n").into_bytes()
}

fn header(name: &str, size: u64, kind: u8) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    h[..name.len()].copy_from_slice(name.as_bytes());
    octal(&mut h[100..108], 0o644);
    octal(&mut h[108..116], 0);
    octal(&mut h[116..124], 0);
    octal(&mut h[124..136], size);
    octal(&mut h[136..148], 0);
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].fill(b' ');
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let digits = format!("{sum:06o}");
    h[148..154].copy_from_slice(&digits.as_bytes()[digits.len() - 6..]);
    h[154] = 0;
    h[155] = b' ';
    h
}

/// Writes `value` as zero-padded octal digits followed by a NUL, filling `field`.
fn octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let digits = format!("{value:0width$o}");
    field[..width].copy_from_slice(&digits.as_bytes()[digits.len() - width..]);
    field[width] = 0;
}

/// One regular file read back from a tar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TarMember<'a> {
    pub name: String,
    pub data: &'a [u8],
}

/// Reads a tar as [`TarWriter`] writes it (ustar files, pax `path` and `size` records), checking
/// every header's checksum and every length against the bytes there are.
pub fn read(tar: &[u8]) -> Result<Vec<TarMember<'_>>, String> {
    let mut members = Vec::new();
    let mut at = 0usize;
    let mut pending_name: Option<String> = None;
    let mut pending_size: Option<u64> = None;
    loop {
        let h = tar.get(at..at + BLOCK).ok_or_else(|| {
            format!(
                "at byte {at}: expected a 512-byte header or the end blocks, found {} bytes",
                tar.len().saturating_sub(at)
            )
        })?;
        if h.iter().all(|&b| b == 0) {
            let end = tar.get(at + BLOCK..at + 2 * BLOCK);
            return match end {
                Some(b) if b.iter().all(|&x| x == 0) => Ok(members),
                _ => Err(format!("at byte {}: expected a second zero block ending the tar", at + BLOCK)),
            };
        }
        check_checksum(h, at)?;
        if &h[257..263] != b"ustar\0" {
            return Err(format!("at byte {}: expected the ustar magic `ustar\\0`, found {:?}", at + 257, &h[257..263]));
        }
        let header_size = parse_octal(&h[124..136])
            .ok_or_else(|| format!("at byte {}: expected an octal size, found {:?}", at + 124, &h[124..136]))?;
        let size = match h[156] {
            b'x' => header_size,
            _ => pending_size.take().unwrap_or(header_size),
        };
        let start = at + BLOCK;
        let len = usize::try_from(size)
            .map_err(|_| format!("at byte {}: a size of {size} bytes does not fit in memory here", at + 124))?;
        let data = start.checked_add(len).and_then(|end| tar.get(start..end)).ok_or_else(|| {
            format!("at byte {start}: expected {size} bytes of file data, found {}", tar.len().saturating_sub(start))
        })?;
        match h[156] {
            b'x' => {
                for (key, value) in pax_records(data, start)? {
                    match key.as_str() {
                        "path" => pending_name = Some(value),
                        "size" => {
                            pending_size = Some(value.parse().map_err(|_| {
                                format!("at byte {start}: expected a decimal pax size, found {value:?}")
                            })?)
                        }
                        _ => {}
                    }
                }
            }
            b'0' | 0 => {
                let short = String::from_utf8(h[..NAME_LEN].split(|&b| b == 0).next().unwrap_or(&[]).to_vec())
                    .map_err(|_| format!("at byte {at}: expected a UTF-8 name"))?;
                members.push(TarMember { name: pending_name.take().unwrap_or(short), data });
            }
            other => {
                return Err(format!(
                    "at byte {}: expected a regular file (`0`) or a pax header (`x`), found type {:?}",
                    at + 156,
                    other as char
                ))
            }
        }
        at = start + len.div_ceil(BLOCK) * BLOCK;
    }
}

fn check_checksum(h: &[u8], at: usize) -> Result<(), String> {
    let stored =
        parse_octal(&h[148..156]).ok_or_else(|| format!("at byte {}: expected an octal checksum", at + 148))?;
    let computed: u64 =
        h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { u64::from(b' ') } else { u64::from(b) }).sum();
    if stored != computed {
        return Err(format!("at byte {}: expected header checksum {computed:o}, found {stored:o}", at + 148));
    }
    Ok(())
}

/// Octal digits, leading spaces allowed, ended by NUL, space or the field's end.
fn parse_octal(field: &[u8]) -> Option<u64> {
    let digits: Vec<u8> =
        field.iter().copied().skip_while(|&b| b == b' ').take_while(|&b| b != 0 && b != b' ').collect();
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &d| {
        if (b'0'..=b'7').contains(&d) {
            n.checked_mul(8)?.checked_add(u64::from(d - b'0'))
        } else {
            None
        }
    })
}

/// The `key=value` records of a pax extended header whose data starts at byte `at`.
fn pax_records(mut data: &[u8], mut at: usize) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let space = data
            .iter()
            .position(|&b| b == b' ')
            .ok_or_else(|| format!("at byte {at}: expected `<length> ` starting a pax record"))?;
        let length: usize = std::str::from_utf8(&data[..space])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("at byte {at}: expected a decimal pax record length"))?;
        if length <= space + 1 || length > data.len() || data[length - 1] != b'\n' {
            return Err(format!(
                "at byte {at}: expected a pax record of {length} bytes ending in a newline, found {} bytes left",
                data.len()
            ));
        }
        let record = std::str::from_utf8(&data[space + 1..length - 1])
            .map_err(|_| format!("at byte {at}: expected a UTF-8 pax record"))?;
        let (key, value) = record
            .split_once('=')
            .ok_or_else(|| format!("at byte {at}: expected `key=value` in a pax record, found {record:?}"))?;
        out.push((key.to_string(), value.to_string()));
        data = &data[length..];
        at += length;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = TarWriter::new();
        for (name, data) in files {
            w.add(name, data).unwrap();
        }
        w.finish()
    }

    #[test]
    fn files_read_back_with_their_names_and_bytes() {
        let long = format!("{}.hipv4-amdgcn-amd-amdhsa--gfx90a_xnack+.co", "x".repeat(150));
        let big: Vec<u8> = (0..1500u32).map(|i| (i % 251) as u8).collect();
        let files: Vec<(&str, &[u8])> =
            vec![("a.co", b"hello"), ("empty.bin", b""), (&long, &big), ("exact.bin", &[7u8; 512])];
        let tar = tar_of(&files);
        assert_eq!(tar.len() % BLOCK, 0);
        let back = read(&tar).unwrap();
        assert_eq!(back.len(), files.len());
        for (m, (name, data)) in back.iter().zip(&files) {
            assert_eq!((m.name.as_str(), m.data), (*name, *data));
        }
    }

    #[test]
    fn pax_record_lengths_count_themselves() {
        for n in [1, 5, 90, 95, 96, 97, 990, 995, 996, 997] {
            let r = pax_record("path", &"p".repeat(n));
            let text = String::from_utf8(r.clone()).unwrap();
            let len: usize = text.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(len, r.len(), "{text}");
        }
    }

    #[test]
    fn names_that_would_leave_the_directory_are_refused() {
        let mut w = TarWriter::new();
        for bad in ["", ".", "..", "a/b", "../x", "a\\b", "nul\0"] {
            assert!(w.add(bad, b"x").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn damaged_tars_are_errors_not_panics() {
        let tar = tar_of(&[("a.co", b"hello world"), ("b.co", &[1u8; 700])]);
        for cut in 0..tar.len() {
            assert!(read(&tar[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = tar.clone();
        bad[0] ^= 1;
        assert!(read(&bad).unwrap_err().contains("checksum"));
        let mut huge = tar.clone();
        huge[124..135].copy_from_slice(b"77777777777");
        let sum: u32 =
            huge[..512].iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u32::from(b) }).sum();
        huge[148..154].copy_from_slice(format!("{sum:06o}").as_bytes());
        assert!(read(&huge).unwrap_err().contains("expected 8589934591 bytes"));
    }

    /// The system's `tar` lists and extracts what we write, long names included.
    #[test]
    fn system_tar_reads_what_we_write() {
        let Ok(out) = std::process::Command::new("tar").arg("--version").output() else {
            eprintln!("no tar here; skipped");
            return;
        };
        assert!(out.status.success());
        let long = format!("{}.gfx90a.co", "n".repeat(180));
        let dir = std::env::temp_dir().join(format!("offload-www-tar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.tar");
        let files: Vec<(&str, &[u8])> = vec![("short.bc", b"BC\xC0\xDE"), (&long, &[9u8; 1000]), ("empty", b"")];
        std::fs::write(&path, tar_of(&files)).unwrap();
        let listed = std::process::Command::new("tar").arg("-tf").arg(&path).output().unwrap();
        assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
        let names: Vec<String> = String::from_utf8(listed.stdout).unwrap().lines().map(str::to_string).collect();
        assert_eq!(names, files.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>());
        let x = std::process::Command::new("tar").arg("-xf").arg(&path).arg("-C").arg(&dir).output().unwrap();
        assert!(x.status.success(), "{}", String::from_utf8_lossy(&x.stderr));
        for (name, data) in &files {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), *data, "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
