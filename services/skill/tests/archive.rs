//! Archive packing and (hostile) unpacking.

mod common;

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use cairn_skill::archive::{ArchiveError, max_decompressed_bytes, pack, unpack};
use cairn_skill::frontmatter::FrontmatterError;
use cairn_skill::path::PathError;
use cairn_skill::{Bundle, BundleError, BundleFile, Limits, RelPath};
use flate2::Compression;
use flate2::write::GzEncoder;
use tar::{EntryType, Header};

const SKILL: &[u8] = b"---\nname: demo\ndescription: Demo skill.\n---\n# Demo\n\nDo things.\n";

fn p(s: &str) -> RelPath {
    RelPath::parse(s).unwrap()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// A GNU header with `name` written as raw bytes (bypassing the tar crate's path checks).
fn raw_header(name: &[u8], kind: EntryType, size: u64, mode: u32) -> Header {
    let mut h = Header::new_gnu();
    h.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name);
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(mode);
    h.set_mtime(0);
    h.set_cksum();
    h
}

/// A tar (uncompressed) with a valid SKILL.md followed by `extra` raw entries.
fn tar_with(extra: &[(&[u8], EntryType, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    b.append(
        &raw_header(b"SKILL.md", EntryType::Regular, SKILL.len() as u64, 0o644),
        SKILL,
    )
    .unwrap();
    for (name, kind, data) in extra {
        b.append(&raw_header(name, *kind, data.len() as u64, 0o644), *data)
            .unwrap();
    }
    b.into_inner().unwrap()
}

fn unpack_default(archive: &[u8]) -> Result<Bundle, ArchiveError> {
    unpack(archive, &Limits::default())
}

fn demo_bundle() -> Bundle {
    let long = format!("references/{}/{}.md", "deep".repeat(30), "n".repeat(40));
    Bundle::from_files(
        [
            (RelPath::skill_md(), BundleFile::new(SKILL.to_vec(), false)),
            (
                p("scripts/run.sh"),
                BundleFile::new(b"#!/bin/sh\necho hi\n".to_vec(), true),
            ),
            (
                p("references/café.md"),
                BundleFile::new("é".repeat(1000).into_bytes(), false),
            ),
            (p(&long), BundleFile::new(b"long".to_vec(), false)),
            (p("assets/empty.txt"), BundleFile::new(Vec::new(), false)),
        ],
        &Limits::default(),
    )
    .unwrap()
}

#[test]
fn round_trip_every_hermes_bundle() {
    let root = common::corpus_root().join("hermes");
    let dirs = common::find_skill_dirs(&root);
    assert!(
        dirs.len() > 100,
        "found {} hermes skills under {}",
        dirs.len(),
        root.display()
    );
    let limits = Limits::default();
    let (mut ok, mut refused) = (0, Vec::new());
    for dir in &dirs {
        let rel = dir.strip_prefix(&root).unwrap().display().to_string();
        let files = common::read_skill_dir(dir);
        let bundle = match Bundle::from_files(files.clone(), &limits) {
            Ok(b) => b,
            Err(e @ BundleError::Frontmatter(FrontmatterError::SkillMdTooLong { .. })) => {
                refused.push(format!("{rel}: {e}"));
                continue;
            }
            Err(e) => panic!("{rel}: {e}"),
        };
        let bytes = pack(&bundle, Vec::new()).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let back = unpack(bytes.as_slice(), &limits).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(back.files(), bundle.files(), "{rel}");
        assert_eq!(back.digest(), bundle.digest(), "{rel}");
        assert_eq!(back.manifest(), bundle.manifest(), "{rel}");
        assert_eq!(back.document(), bundle.document(), "{rel}");
        assert_eq!(back.len(), files.len(), "{rel}");
        // Packing the unpacked bundle gives the same bytes.
        assert_eq!(pack(&back, Vec::new()).unwrap(), bytes, "{rel}");
        ok += 1;
    }
    println!("round-tripped {ok} hermes bundles; refused {}:", refused.len());
    for r in &refused {
        println!("  {r}");
    }
    assert!(refused.len() <= 2, "{refused:?}");
    assert_eq!(ok + refused.len(), dirs.len());
}

#[test]
fn pack_is_deterministic_and_canonical() {
    let bundle = demo_bundle();
    let one = pack(&bundle, Vec::new()).unwrap();
    let two = pack(&bundle, Vec::new()).unwrap();
    assert_eq!(one, two);
    // Same files added in another order give the same bytes.
    let mut files: Vec<_> = bundle.files().clone().into_iter().collect();
    files.reverse();
    let again = Bundle::from_files(files, &Limits::default()).unwrap();
    assert_eq!(pack(&again, Vec::new()).unwrap(), one);
    // Gzip header: no timestamp, OS unknown.
    assert_eq!(&one[..4], &[0x1f, 0x8b, 8, 0]);
    assert_eq!(&one[4..8], &[0, 0, 0, 0]);
    assert_eq!(one[9], 255);

    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(one.as_slice()));
    let mut names = Vec::new();
    for entry in archive.entries().unwrap() {
        let entry = entry.unwrap();
        let h = entry.header();
        assert_eq!(h.entry_type(), EntryType::Regular);
        assert_eq!(h.mtime().unwrap(), 0);
        assert_eq!(h.uid().unwrap(), 0);
        assert_eq!(h.gid().unwrap(), 0);
        assert_eq!(h.username().unwrap(), Some(""));
        assert_eq!(h.groupname().unwrap(), Some(""));
        let name = String::from_utf8(entry.path_bytes().into_owned()).unwrap();
        let expected_mode = if name == "scripts/run.sh" { 0o755 } else { 0o644 };
        assert_eq!(h.mode().unwrap(), expected_mode, "{name}");
        names.push(name);
    }
    let expected: Vec<String> = bundle.files().keys().map(|k| k.to_string()).collect();
    assert_eq!(names, expected);
    let back = unpack_default(&one).unwrap();
    assert_eq!(back, bundle);
    assert!(back.get(&p("scripts/run.sh")).unwrap().executable);
}

#[test]
fn accepts_dot_slash_directories_and_exec_bits() {
    let mut b = tar::Builder::new(Vec::new());
    b.append(&raw_header(b"./", EntryType::Directory, 0, 0o755), &[][..])
        .unwrap();
    b.append(
        &raw_header(b"./SKILL.md", EntryType::Regular, SKILL.len() as u64, 0o600),
        SKILL,
    )
    .unwrap();
    b.append(&raw_header(b"./scripts/", EntryType::Directory, 0, 0o755), &[][..])
        .unwrap();
    b.append(&raw_header(b"./scripts/a.sh", EntryType::Regular, 2, 0o700), &b"hi"[..])
        .unwrap();
    b.append(&raw_header(b"scripts/b.sh", EntryType::Regular, 2, 0o001), &b"hi"[..])
        .unwrap();
    b.append(&raw_header(b"old-style-dir/", EntryType::Regular, 0, 0o755), &[][..])
        .unwrap();
    let bundle = unpack_default(&gz(&b.into_inner().unwrap())).unwrap();
    let paths: Vec<&str> = bundle.files().keys().map(RelPath::as_str).collect();
    assert_eq!(paths, ["SKILL.md", "scripts/a.sh", "scripts/b.sh"]);
    assert!(!bundle.get(&RelPath::skill_md()).unwrap().executable);
    assert!(bundle.get(&p("scripts/a.sh")).unwrap().executable);
    assert!(bundle.get(&p("scripts/b.sh")).unwrap().executable);
}

#[test]
fn malformed_gzip() {
    for input in [&b""[..], b"not a gzip file at all", &[0x1f, 0x8b, 8, 0, 0, 0]] {
        let e = unpack_default(input).unwrap_err();
        assert!(matches!(e, ArchiveError::Malformed { .. }), "{input:?}: {e:?}");
        assert!(e.to_string().contains("not a valid tar.gz archive"), "{e}");
    }
    // Truncated and corrupted versions of a valid archive.
    let good = pack(&demo_bundle(), Vec::new()).unwrap();
    let e = unpack_default(&good[..good.len() / 2]).unwrap_err();
    assert!(matches!(e, ArchiveError::Malformed { .. }), "{e:?}");
    let mut crc = good.clone();
    let n = crc.len();
    crc[n - 6] ^= 0xff; // inside the CRC32 trailer
    let e = unpack_default(&crc).unwrap_err();
    assert!(matches!(e, ArchiveError::Malformed { .. }), "{e:?}");
}

#[test]
fn valid_gzip_garbage_tar() {
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 13) as u8).collect();
    let e = unpack_default(&gz(&garbage)).unwrap_err();
    assert!(matches!(e, ArchiveError::Malformed { .. }), "{e:?}");
    assert!(e.to_string().contains("not a valid tar.gz archive"));
    // A plain (uncompressed) tar is not gzip.
    let e = unpack_default(&tar_with(&[])).unwrap_err();
    assert!(matches!(e, ArchiveError::Malformed { .. }), "{e:?}");
}

/// Checks that an error is the expected variant.
type Check = fn(&PathError) -> bool;

#[test]
fn refuses_bad_paths() {
    let cases: &[(&[u8], Check)] = &[
        (b"../evil", |e| matches!(e, PathError::ParentDir { .. })),
        (b"a/../../evil", |e| matches!(e, PathError::ParentDir { .. })),
        (b"/etc/passwd", |e| matches!(e, PathError::Absolute { .. })),
        (b".git/config", |e| matches!(e, PathError::Hidden { .. })),
        (b"a\\b", |e| matches!(e, PathError::Backslash { .. })),
        (b"a//b", |e| matches!(e, PathError::EmptySegment { .. })),
        (b"././x", |e| matches!(e, PathError::CurrentDir { .. })),
        ("cafe\u{301}.md".as_bytes(), |e| matches!(e, PathError::NotNfc { .. })),
    ];
    for (name, check) in cases {
        let e = unpack_default(&gz(&tar_with(&[(name, EntryType::Regular, b"x")]))).unwrap_err();
        match &e {
            ArchiveError::InvalidPath { source } => assert!(check(source), "{name:?}: {source:?}"),
            other => panic!("{name:?}: {other:?}"),
        }
        // The error names the path as checked: after removing one leading "./".
        let name = name.strip_prefix(b"./").unwrap_or(name);
        let shown = String::from_utf8_lossy(name).replace('\\', "\\\\");
        assert!(e.to_string().contains(&shown), "{e}");
    }
    let e = unpack_default(&gz(&tar_with(&[(b"bad\xff.md", EntryType::Regular, b"x")]))).unwrap_err();
    assert!(matches!(e, ArchiveError::NonUtf8Path { .. }), "{e:?}");
}

#[test]
fn refuses_traversal_in_long_names_and_pax_paths() {
    // GNU long name record carrying a '..' path.
    let long = format!("{}../evil", "a/".repeat(60));
    let mut b = tar::Builder::new(Vec::new());
    b.append(
        &raw_header(b"SKILL.md", EntryType::Regular, SKILL.len() as u64, 0o644),
        SKILL,
    )
    .unwrap();
    let mut name = long.clone().into_bytes();
    name.push(0);
    b.append(
        &raw_header(b"././@LongLink", EntryType::GNULongName, name.len() as u64, 0o644),
        name.as_slice(),
    )
    .unwrap();
    b.append(&raw_header(b"innocent", EntryType::Regular, 1, 0o644), &b"x"[..])
        .unwrap();
    let e = unpack_default(&gz(&b.into_inner().unwrap())).unwrap_err();
    assert!(
        matches!(
            e,
            ArchiveError::InvalidPath {
                source: PathError::ParentDir { .. }
            }
        ),
        "{e:?}"
    );

    // Pax 'path' overriding an innocent header name.
    let mut b = tar::Builder::new(Vec::new());
    b.append(
        &raw_header(b"SKILL.md", EntryType::Regular, SKILL.len() as u64, 0o644),
        SKILL,
    )
    .unwrap();
    b.append_pax_extensions([("path", &b"../../etc/cron.d/x"[..])]).unwrap();
    b.append(&raw_header(b"innocent", EntryType::Regular, 1, 0o644), &b"x"[..])
        .unwrap();
    let e = unpack_default(&gz(&b.into_inner().unwrap())).unwrap_err();
    assert!(
        matches!(
            e,
            ArchiveError::InvalidPath {
                source: PathError::ParentDir { .. }
            }
        ),
        "{e:?}"
    );
}

#[test]
fn refuses_links_devices_and_fifos() {
    let cases = [
        (EntryType::Symlink, "symbolic link"),
        (EntryType::Link, "hard link"),
        (EntryType::Char, "character device"),
        (EntryType::Block, "block device"),
        (EntryType::Fifo, "FIFO"),
        (EntryType::new(b'Z'), "non-regular entry"),
    ];
    for (kind, word) in cases {
        let mut b = tar::Builder::new(Vec::new());
        b.append(
            &raw_header(b"SKILL.md", EntryType::Regular, SKILL.len() as u64, 0o644),
            SKILL,
        )
        .unwrap();
        let mut h = raw_header(b"scripts/thing", kind, 0, 0o777);
        if matches!(kind, EntryType::Symlink | EntryType::Link) {
            h.set_link_name("/etc/passwd").unwrap();
            h.set_cksum();
        }
        b.append(&h, &[][..]).unwrap();
        let e = unpack_default(&gz(&b.into_inner().unwrap())).unwrap_err();
        assert!(
            matches!(&e, ArchiveError::UnsupportedEntry { path, .. } if path == "scripts/thing"),
            "{kind:?}: {e:?}"
        );
        let msg = e.to_string();
        assert!(msg.contains("scripts/thing") && msg.contains(word), "{msg}");
    }
}

#[test]
fn refuses_duplicates() {
    let e = unpack_default(&gz(&tar_with(&[
        (b"a.md", EntryType::Regular, b"1"),
        (b"a.md", EntryType::Regular, b"2"),
    ])))
    .unwrap_err();
    assert!(
        matches!(e, ArchiveError::Bundle(BundleError::DuplicatePath { ref path }) if path.as_str() == "a.md"),
        "{e:?}"
    );
    let e = unpack_default(&gz(&tar_with(&[(b"./SKILL.md", EntryType::Regular, SKILL)]))).unwrap_err();
    assert!(
        matches!(e, ArchiveError::Bundle(BundleError::DuplicatePath { .. })),
        "{e:?}"
    );
}

#[test]
fn refuses_too_many_files() {
    let names: Vec<String> = (0..200).map(|i| format!("f{i:03}.txt")).collect();
    let extra: Vec<(&[u8], EntryType, &[u8])> = names
        .iter()
        .map(|n| (n.as_bytes(), EntryType::Regular, &b"x"[..]))
        .collect();
    let e = unpack_default(&gz(&tar_with(&extra))).unwrap_err();
    assert!(
        matches!(e, ArchiveError::Bundle(BundleError::TooManyFiles { max: 200 })),
        "{e:?}"
    );
    // 200 in all is fine.
    assert_eq!(unpack_default(&gz(&tar_with(&extra[..199]))).unwrap().len(), 200);
}

#[test]
fn refuses_oversized_file_and_total() {
    let big = vec![b'x'; 1_048_577];
    let e = unpack_default(&gz(&tar_with(&[(b"big.bin", EntryType::Regular, &big)]))).unwrap_err();
    assert!(
        matches!(
            e,
            ArchiveError::Bundle(BundleError::FileTooLarge {
                size: 1_048_577,
                max: 1_048_576,
                ..
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("big.bin"));
    let ok = vec![b'x'; 1_048_576];
    assert!(unpack_default(&gz(&tar_with(&[(b"ok.bin", EntryType::Regular, &ok)]))).is_ok());

    let names: Vec<String> = (0..10).map(|i| format!("f{i}.bin")).collect();
    let extra: Vec<(&[u8], EntryType, &[u8])> = names
        .iter()
        .map(|n| (n.as_bytes(), EntryType::Regular, ok.as_slice()))
        .collect();
    let e = unpack_default(&gz(&tar_with(&extra))).unwrap_err();
    assert!(
        matches!(e, ArchiveError::Bundle(BundleError::TotalTooLarge { .. })),
        "{e:?}"
    );
}

#[test]
fn refuses_missing_or_invalid_skill_md() {
    let mut b = tar::Builder::new(Vec::new());
    b.append(&raw_header(b"README.md", EntryType::Regular, 2, 0o644), &b"hi"[..])
        .unwrap();
    let e = unpack_default(&gz(&b.into_inner().unwrap())).unwrap_err();
    assert!(matches!(e, ArchiveError::Bundle(BundleError::MissingSkillMd)), "{e:?}");
    let mut b = tar::Builder::new(Vec::new());
    b.append(
        &raw_header(b"SKILL.md", EntryType::Regular, 3, 0o644),
        &b"\xff\xfe\xfd"[..],
    )
    .unwrap();
    let e = unpack_default(&gz(&b.into_inner().unwrap())).unwrap_err();
    assert!(
        matches!(e, ArchiveError::Bundle(BundleError::SkillMdNotUtf8 { valid_up_to: 0 })),
        "{e:?}"
    );
}

/// Streams a tar holding SKILL.md and one `size`-byte entry of zeros named `name` through the
/// gzip encoder without ever holding the entry in memory.
fn zero_bomb(name: &[u8], kind: EntryType, size: u64) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    let head = tar_with(&[]);
    enc.write_all(&head[..head.len() - 1024]).unwrap(); // drop the end-of-archive blocks
    enc.write_all(raw_header(name, kind, size, 0o644).as_bytes()).unwrap();
    io::copy(&mut io::repeat(0).take(size), &mut enc).unwrap();
    enc.write_all(&[0u8; 1024]).unwrap();
    enc.finish().unwrap()
}

#[test]
fn refuses_decompression_bombs_quickly() {
    const FIFTY_MIB: u64 = 50 * 1024 * 1024;
    let start = Instant::now();
    let bomb = zero_bomb(b"zeros.bin", EntryType::Regular, FIFTY_MIB);
    println!(
        "50 MiB bomb compresses to {} bytes in {:?}",
        bomb.len(),
        start.elapsed()
    );
    assert!(bomb.len() < 1024 * 1024);

    // Default limits: refused from the header before reading content.
    let start = Instant::now();
    let e = unpack_default(&bomb).unwrap_err();
    assert!(
        matches!(e, ArchiveError::Bundle(BundleError::FileTooLarge { .. })),
        "{e:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));

    // With a per-file limit that would allow it, the decompressed-bytes counter stops it.
    let lax = Limits {
        max_file_bytes: 100 * 1024 * 1024,
        ..Limits::default()
    };
    let start = Instant::now();
    let e = unpack(bomb.as_slice(), &lax).unwrap_err();
    assert!(
        matches!(e, ArchiveError::DecompressedTooLarge { max } if max == max_decompressed_bytes(&lax)),
        "{e:?}"
    );
    assert!(e.to_string().contains("decompresses to more than"));
    assert!(start.elapsed() < Duration::from_secs(10));

    // A directory entry claiming 50 MiB of data: skipped, but its bytes are still counted.
    let dir_bomb = zero_bomb(b"dir/", EntryType::Directory, FIFTY_MIB);
    let e = unpack_default(&dir_bomb).unwrap_err();
    assert!(matches!(e, ArchiveError::DecompressedTooLarge { .. }), "{e:?}");
}

#[test]
fn refuses_bomb_after_end_of_archive() {
    // A valid archive followed, in the same gzip stream, by 50 MiB of zeros.
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(&tar_with(&[])).unwrap();
    io::copy(&mut io::repeat(0).take(50 * 1024 * 1024), &mut enc).unwrap();
    let bomb = enc.finish().unwrap();
    let e = unpack_default(&bomb).unwrap_err();
    assert!(matches!(e, ArchiveError::DecompressedTooLarge { .. }), "{e:?}");
    // The same archive without the padding is fine.
    assert!(unpack_default(&gz(&tar_with(&[]))).is_ok());
}

#[test]
fn reader_errors_are_not_reported_as_malformed() {
    struct Failing<'a>(&'a [u8]);
    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(io::ErrorKind::ConnectionReset, "client went away"));
            }
            let n = self.0.len().min(buf.len()).min(100);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let good = pack(&demo_bundle(), Vec::new()).unwrap();
    let e = unpack(Failing(&good[..good.len() / 2]), &Limits::default()).unwrap_err();
    match e {
        ArchiveError::Read(io) => assert_eq!(io.kind(), io::ErrorKind::ConnectionReset),
        other => panic!("{other:?}"),
    }
}

#[test]
fn multi_member_gzip_is_read_whole() {
    let tar = tar_with(&[(b"a.md", EntryType::Regular, b"a")]);
    let (first, second) = tar.split_at(512 * 3);
    let mut joined = gz(first);
    joined.extend(gz(second));
    let bundle = unpack_default(&joined).unwrap();
    assert_eq!(bundle.get(&p("a.md")).unwrap().bytes, b"a");
}
