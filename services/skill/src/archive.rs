//! Bundles as `.tar.gz` archives: deterministic packing and defensive unpacking.
//!
//! [`pack`] writes the same bytes for the same bundle every time (sorted regular-file entries,
//! fixed modes, zero timestamps and owners), so archives can be cached and compared by hash.
//! [`unpack`] reads untrusted uploads: it streams, enforces every bundle limit while reading,
//! counts decompressed bytes rather than trusting headers (decompression bombs), and accepts
//! only regular files with valid [`RelPath`]s (no links, devices, FIFOs or traversal).

use std::cell::{Cell, RefCell};
use std::io::{self, Read, Write};
use std::rc::Rc;

use flate2::Compression;
use flate2::GzBuilder;
use flate2::read::MultiGzDecoder;
use tar::{EntryType, Header};

use crate::bundle::{Bundle, BundleError};
use crate::limits::Limits;
use crate::name::shown;
use crate::path::{PathError, RelPath};

/// Per-file allowance for tar framing (header, GNU long-name or pax records, padding) when
/// bounding the decompressed size of an archive.
const FRAMING_BYTES_PER_FILE: u64 = 2048;
/// Extra framing allowance for the end-of-archive blocks and a few skipped entries.
const EXTRA_FRAMING_ENTRIES: u64 = 16;

/// Why an archive could not be written or read as a bundle.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The input is not gzip, or the gzip stream does not contain a well-formed tar archive.
    #[error("not a valid tar.gz archive ({detail}): upload a gzip-compressed tar file of the skill folder")]
    Malformed {
        /// What the decoder reported.
        detail: String,
    },
    /// Decompressing produced more bytes than any valid bundle can need (decompression bomb).
    #[error(
        "archive decompresses to more than {max} bytes, more than any bundle within the limits needs: upload only the skill's files (at most the bundle size limit)"
    )]
    DecompressedTooLarge {
        /// The limit on decompressed bytes.
        max: u64,
    },
    /// An entry is not a regular file or directory.
    #[error(
        "archive entry '{path}' is a {kind}: only regular files are allowed in a skill bundle (no symlinks, hard links, devices or FIFOs); replace it with a regular file"
    )]
    UnsupportedEntry {
        /// The entry's path (escaped for display).
        path: String,
        /// What kind of entry it is.
        kind: String,
    },
    /// An entry's path is not a valid bundle path.
    #[error("archive entry path is not allowed: {source}")]
    InvalidPath {
        /// The rule it breaks (the message names the path).
        #[from]
        source: PathError,
    },
    /// An entry's path is not UTF-8.
    #[error("archive entry path '{path}' is not valid UTF-8: rename the file using UTF-8 (NFC) characters")]
    NonUtf8Path {
        /// The path, with invalid bytes replaced (for display).
        path: String,
    },
    /// The files break a bundle rule (duplicates, counts, sizes, SKILL.md).
    #[error(transparent)]
    Bundle(#[from] BundleError),
    /// Reading the input failed (the reader's own error, not bad archive content).
    #[error("could not read the archive: {0}")]
    Read(#[source] io::Error),
    /// Writing the archive failed.
    #[error("could not write the archive: {0}")]
    Write(#[source] io::Error),
}

/// Writes `bundle` as a deterministic `.tar.gz` into `writer` and returns the writer.
///
/// Only regular-file entries, in path byte order; mode 0644 or 0755, mtime 0, uid/gid 0 and
/// empty owner names; paths over 100 bytes use GNU long-name records. The same bundle always
/// produces the same bytes.
pub fn pack<W: Write>(bundle: &Bundle, writer: W) -> Result<W, ArchiveError> {
    pack_entries(
        bundle
            .files()
            .iter()
            .map(|(path, file)| (path.as_str(), file.bytes.as_slice(), file.executable)),
        writer,
    )
}

/// Packs already-stored files (path, bytes, executable) exactly as [`pack`] packs a bundle,
/// without validating them again (not even the paths): readers of published versions use this, so a version stays
/// downloadable even if the write-time rules tighten later. Entries are sorted here.
pub fn pack_entries<'a, W: Write>(
    entries: impl IntoIterator<Item = (&'a str, &'a [u8], bool)>,
    writer: W,
) -> Result<W, ArchiveError> {
    let mut entries: Vec<(&str, &[u8], bool)> = entries.into_iter().collect();
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let gz = GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(writer, Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (path, bytes, executable) in entries {
        let mut header = Header::new_gnu();
        header.set_entry_type(EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(if executable { 0o755 } else { 0o644 });
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_username("").map_err(ArchiveError::Write)?;
        header.set_groupname("").map_err(ArchiveError::Write)?;
        tar.append_data(&mut header, path, bytes).map_err(ArchiveError::Write)?;
    }
    let gz = tar.into_inner().map_err(ArchiveError::Write)?;
    gz.finish().map_err(ArchiveError::Write)
}

/// The most decompressed bytes a valid bundle archive can need under `limits`.
pub fn max_decompressed_bytes(limits: &Limits) -> u64 {
    let entries = (limits.max_files as u64).saturating_add(EXTRA_FRAMING_ENTRIES);
    limits
        .max_total_bytes
        .saturating_add(entries.saturating_mul(FRAMING_BYTES_PER_FILE))
}

/// Reads a `.tar.gz` from `reader` into a validated [`Bundle`], enforcing `limits` while
/// reading.
///
/// Accepts regular files (an optional leading `./` is removed) and skips directory entries and
/// pax global headers; refuses links, devices, FIFOs and every other entry kind, invalid paths,
/// duplicates, too many or too large files, and archives that decompress to more than
/// [`max_decompressed_bytes`]. A file is executable when its mode has any execute bit.
pub fn unpack<R: Read>(reader: R, limits: &Limits) -> Result<Bundle, ArchiveError> {
    let state = Rc::new(ReadState::default());
    let max = max_decompressed_bytes(limits);
    let input = TapReader {
        inner: reader,
        state: Rc::clone(&state),
    };
    let counted = CountingReader {
        inner: MultiGzDecoder::new(input),
        state: Rc::clone(&state),
        max,
    };
    let mut archive = tar::Archive::new(counted);
    let classify = |e: io::Error| state.classify(e, max);

    let mut builder = Bundle::builder(limits);
    for entry in archive.entries().map_err(classify)? {
        let mut entry = entry.map_err(classify)?;
        let kind = entry.header().entry_type();
        let raw_path = entry.path_bytes().into_owned();
        let size = entry.size();
        let is_dir = kind.is_dir() || (matches!(kind, EntryType::Regular) && raw_path.ends_with(b"/") && size == 0);
        if is_dir || kind.is_pax_global_extensions() {
            continue;
        }
        if !matches!(kind, EntryType::Regular) {
            return Err(ArchiveError::UnsupportedEntry {
                path: shown(&String::from_utf8_lossy(&raw_path)),
                kind: kind_name(kind),
            });
        }
        let text = std::str::from_utf8(&raw_path).map_err(|_| ArchiveError::NonUtf8Path {
            path: shown(&String::from_utf8_lossy(&raw_path)),
        })?;
        let path = RelPath::parse(text.strip_prefix("./").unwrap_or(text))?;
        // Cheap checks before reading the content.
        if builder.contains(&path) {
            return Err(BundleError::DuplicatePath { path }.into());
        }
        if builder.len() >= limits.max_files {
            return Err(BundleError::TooManyFiles { max: limits.max_files }.into());
        }
        if size > limits.max_file_bytes {
            return Err(BundleError::FileTooLarge {
                path,
                size,
                max: limits.max_file_bytes,
            }
            .into());
        }
        let executable = entry.header().mode().map_err(classify)? & 0o111 != 0;
        // Read with a cap whatever the header says; the counting reader bounds the stream.
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        (&mut entry)
            .take(limits.max_file_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(classify)?;
        let read = bytes.len() as u64;
        if read > limits.max_file_bytes {
            return Err(BundleError::FileTooLarge {
                path,
                size: read,
                max: limits.max_file_bytes,
            }
            .into());
        }
        builder.add(path, bytes, executable)?;
    }
    // Read to the end of the gzip stream so its checksum is verified (still bounded).
    let mut rest = archive.into_inner();
    io::copy(&mut rest, &mut io::sink()).map_err(classify)?;
    if state.decompressed.get() == 0 {
        return Err(ArchiveError::Malformed {
            detail: "empty input".to_owned(),
        });
    }
    Ok(builder.finish()?)
}

/// A readable name for a refused tar entry kind.
fn kind_name(kind: EntryType) -> String {
    match kind {
        EntryType::Symlink => "symbolic link".to_owned(),
        EntryType::Link => "hard link".to_owned(),
        EntryType::Char => "character device".to_owned(),
        EntryType::Block => "block device".to_owned(),
        EntryType::Fifo => "FIFO".to_owned(),
        EntryType::Continuous => "contiguous file".to_owned(),
        EntryType::GNUSparse => "sparse file".to_owned(),
        EntryType::GNULongName | EntryType::GNULongLink | EntryType::XHeader => "misplaced extension header".to_owned(),
        other => format!("non-regular entry (type {:?})", char::from(other.as_byte())),
    }
}

/// State shared by the reader wrappers of one `unpack` call.
#[derive(Default)]
struct ReadState {
    /// Decompressed bytes handed to the tar parser so far.
    decompressed: Cell<u64>,
    /// Set once `decompressed` went over the limit.
    over_limit: Cell<bool>,
    /// The caller's reader failed (kind and message), as opposed to bad content.
    input_error: RefCell<Option<(io::ErrorKind, String)>>,
}

impl ReadState {
    /// Turns an I/O error from the decoder chain into the right [`ArchiveError`].
    fn classify(&self, e: io::Error, max: u64) -> ArchiveError {
        if self.over_limit.get() {
            ArchiveError::DecompressedTooLarge { max }
        } else if let Some((kind, msg)) = self.input_error.borrow_mut().take() {
            ArchiveError::Read(io::Error::new(kind, msg))
        } else {
            ArchiveError::Malformed { detail: e.to_string() }
        }
    }
}

/// Records errors of the caller's reader so they are not reported as a malformed archive.
struct TapReader<R> {
    inner: R,
    state: Rc<ReadState>,
}

impl<R: Read> Read for TapReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            if e.kind() != io::ErrorKind::Interrupted {
                *self.state.input_error.borrow_mut() = Some((e.kind(), e.to_string()));
            }
        })
    }
}

/// Counts decompressed bytes and fails once they exceed `max`, whatever the headers claim.
struct CountingReader<R> {
    inner: R,
    state: Rc<ReadState>,
    max: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let used = self.state.decompressed.get();
        if used > self.max {
            self.state.over_limit.set(true);
            return Err(io::Error::other("decompressed size limit exceeded"));
        }
        // Never hand out more than one byte past the limit.
        let allowed = (self.max - used).saturating_add(1);
        let len = usize::try_from(allowed).map_or(buf.len(), |a| a.min(buf.len()));
        let n = self.inner.read(&mut buf[..len])?;
        let used = used + n as u64;
        self.state.decompressed.set(used);
        if used > self.max {
            self.state.over_limit.set(true);
            return Err(io::Error::other("decompressed size limit exceeded"));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decompressed_cap_formula() {
        let l = Limits::default();
        assert_eq!(max_decompressed_bytes(&l), 10 * 1024 * 1024 + 216 * 2048);
    }

    #[test]
    fn counting_reader_stops_at_limit() {
        let state = Rc::new(ReadState::default());
        let mut r = CountingReader {
            inner: io::repeat(0),
            state: Rc::clone(&state),
            max: 1000,
        };
        let mut sink = Vec::new();
        let e = r.read_to_end(&mut sink).unwrap_err();
        assert!(state.over_limit.get());
        assert!(sink.len() <= 1000);
        assert_eq!(state.decompressed.get(), 1001);
        assert!(matches!(
            state.classify(e, 1000),
            ArchiveError::DecompressedTooLarge { max: 1000 }
        ));
    }
}
