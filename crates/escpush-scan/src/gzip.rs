//! Gzip inputs: members in a row, inflated by the reader thread, and their CRC-32 checked
//! off that thread.
//!
//! Inflating one gzip stream cannot be spread over cores, so the reader thread that does it
//! is what bounds the scan of a single gzip file. The CRC-32 of the decompressed bytes is
//! about an eighth of the work of reading a member (measured on the 1,000,000-line
//! benchmark file: 0.10 s of 0.79 s), and unlike inflating it can be cut into pieces: the
//! reader only inflates and notes where each member ends ([`MemberEnd`]); every chunk
//! carries the [`Piece`]s of the stream it stands for; the worker that evaluates a chunk
//! hashes its bytes; and the collector, which takes chunks in input order, joins the hashes
//! and compares them with each member's trailer ([`Check`]). A mismatch is the same
//! [`ScanError::Gzip`] as a corrupt deflate stream, named by its input.
//!
//! [`Gunzip`] is also a plain `Read` that checks each member itself, for readers that want
//! the decompressed bytes and nothing else (the benchmark's `--inflate-only`).

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::ops::Range;

use crc32fast::Hasher;
use flate2::{Decompress, FlushDecompress, Status};

use crate::ScanError;

pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Where a member ends in the decompressed stream, and what its trailer says of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemberEnd {
    /// Offset in the decompressed stream (of all members) just past the member's last byte.
    pub(crate) at: u64,
    /// The trailer's CRC-32 of the member's decompressed bytes.
    pub(crate) crc: u32,
    /// The trailer's size of the member's decompressed bytes, modulo 2^32.
    pub(crate) size: u32,
}

/// Gzip data of one or more members, decompressed in a row as `gzip -dc` reads it: zeros
/// after the last member (padding some tools and tape blocks add) are ignored; any other
/// bytes there are an error.
///
/// Each member's trailer is either checked here ([`Gunzip::checked`]) or handed out as a
/// [`MemberEnd`] ([`Gunzip::deferred`], [`Gunzip::take_ends`]) for someone else to check.
pub struct Gunzip<R: BufRead> {
    reader: R,
    state: State,
    inflate: Decompress,
    /// Bytes decompressed so far, all members together.
    out: u64,
    /// Where the current member started in the decompressed stream.
    member_start: u64,
    /// `Some`: members are checked here as they are read; `None`: their ends are queued.
    inline: Option<Hasher>,
    ends: VecDeque<MemberEnd>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a member's header (the first one, or one that follows a member).
    Header,
    Body,
    /// After a member: another member, zero padding or the end follows.
    Between,
    /// Zero padding seen: only zeros may follow.
    Padding,
    Done,
}

impl<R: BufRead> std::fmt::Debug for Gunzip<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gunzip")
            .field("out", &self.out)
            .field("checked", &self.inline.is_some())
            .finish_non_exhaustive()
    }
}

impl<R: BufRead> Gunzip<R> {
    /// A reader that checks every member's CRC-32 and size itself.
    pub fn checked(reader: R) -> Self {
        Self::new(reader, Some(Hasher::new()))
    }

    /// A reader that leaves the checks to its caller: see [`Gunzip::take_ends`].
    pub(crate) fn deferred(reader: R) -> Self {
        Self::new(reader, None)
    }

    fn new(reader: R, inline: Option<Hasher>) -> Self {
        Gunzip {
            reader,
            state: State::Header,
            inflate: Decompress::new(false),
            out: 0,
            member_start: 0,
            inline,
            ends: VecDeque::new(),
        }
    }

    /// The ends of the members read so far that have not been taken yet, in order.
    pub(crate) fn take_ends(&mut self) -> impl Iterator<Item = MemberEnd> + '_ {
        self.ends.drain(..)
    }

    /// Reads a member's header (RFC 1952, 2.3), checking its CRC-16 when it has one.
    fn header(&mut self) -> io::Result<()> {
        let mut crc = Hasher::new();
        let mut fixed = [0u8; 10];
        read_exact(&mut self.reader, &mut fixed, "in a member's header")?;
        crc.update(&fixed);
        if fixed[..2] != GZIP_MAGIC {
            return Err(invalid("a member does not start like gzip (bad magic bytes)"));
        }
        if fixed[2] != 8 {
            return Err(invalid(&format!(
                "unknown compression method {} (gzip has only 8, deflate)",
                fixed[2]
            )));
        }
        let flags = fixed[3];
        if flags & 0xe0 != 0 {
            return Err(invalid("reserved header flags are set"));
        }
        if flags & 0x04 != 0 {
            // FEXTRA: a length, then that many bytes.
            let mut len = [0u8; 2];
            read_exact(&mut self.reader, &mut len, "in a member's extra field")?;
            crc.update(&len);
            let mut left = usize::from(u16::from_le_bytes(len));
            while left > 0 {
                let bytes = fill(&mut self.reader)?;
                if bytes.is_empty() {
                    return Err(cut_short("in a member's extra field"));
                }
                let n = bytes.len().min(left);
                crc.update(&bytes[..n]);
                self.reader.consume(n);
                left -= n;
            }
        }
        for (flag, what) in [(0x08, "in a member's file name"), (0x10, "in a member's comment")] {
            if flags & flag != 0 {
                // FNAME, FCOMMENT: text up to a zero byte.
                loop {
                    let bytes = fill(&mut self.reader)?;
                    if bytes.is_empty() {
                        return Err(cut_short(what));
                    }
                    let (n, found) = memchr::memchr(0, bytes).map_or((bytes.len(), false), |i| (i + 1, true));
                    crc.update(&bytes[..n]);
                    self.reader.consume(n);
                    if found {
                        break;
                    }
                }
            }
        }
        if flags & 0x02 != 0 {
            // FHCRC: the low 16 bits of the CRC-32 of the header so far.
            let mut stored = [0u8; 2];
            read_exact(&mut self.reader, &mut stored, "in a member's header check")?;
            if u32::from(u16::from_le_bytes(stored)) != crc.finalize() & 0xffff {
                return Err(invalid("a member's header does not match its CRC-16"));
            }
        }
        Ok(())
    }

    /// Reads the trailer of the member that just ended and checks or queues it.
    fn trailer(&mut self) -> io::Result<()> {
        let mut trailer = [0u8; 8];
        read_exact(&mut self.reader, &mut trailer, "in a member's trailer")?;
        let [c0, c1, c2, c3, s0, s1, s2, s3] = trailer;
        let end = MemberEnd {
            at: self.out,
            crc: u32::from_le_bytes([c0, c1, c2, c3]),
            size: u32::from_le_bytes([s0, s1, s2, s3]),
        };
        let size = self.out - self.member_start;
        self.member_start = self.out;
        if let Some(hasher) = self.inline.as_mut() {
            let crc = std::mem::take(hasher).finalize();
            check(crc, size, end).map_err(|message| io::Error::new(io::ErrorKind::InvalidData, message))
        } else {
            self.ends.push_back(end);
            Ok(())
        }
    }

    /// After a member: whether another one follows (its header is then read).
    fn between(&mut self) -> io::Result<bool> {
        loop {
            let bytes = fill(&mut self.reader)?;
            if bytes.is_empty() {
                return Ok(false);
            }
            if self.state == State::Between && bytes[0] == GZIP_MAGIC[0] {
                return Ok(true);
            }
            if bytes.iter().any(|&b| b != 0) {
                return Err(invalid(
                    "bytes that are neither gzip data nor zero padding after the last member",
                ));
            }
            self.state = State::Padding;
            let n = bytes.len();
            self.reader.consume(n);
        }
    }

    /// Inflates into `buf` until it has at least one byte or the member ends.
    fn body(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let input = fill(&mut self.reader)?;
            if input.is_empty() {
                return Err(cut_short("in a member's compressed data"));
            }
            let (in_before, out_before) = (self.inflate.total_in(), self.inflate.total_out());
            let status = self
                .inflate
                .decompress(input, buf, FlushDecompress::None)
                .map_err(|e| invalid(&format!("corrupt deflate stream: {e}")))?;
            let consumed = usize::try_from(self.inflate.total_in() - in_before).unwrap_or(usize::MAX);
            let produced = usize::try_from(self.inflate.total_out() - out_before).unwrap_or(usize::MAX);
            self.reader.consume(consumed);
            self.out += produced as u64;
            if let Some(hasher) = self.inline.as_mut() {
                hasher.update(&buf[..produced]);
            }
            if status == Status::StreamEnd {
                self.trailer()?;
                self.state = State::Between;
                return Ok(produced);
            }
            if produced > 0 {
                return Ok(produced);
            }
            if consumed == 0 {
                return Err(invalid("corrupt deflate stream: no progress"));
            }
        }
    }
}

impl<R: BufRead> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.state {
                State::Header => {
                    self.header()?;
                    self.inflate.reset(false);
                    self.state = State::Body;
                }
                State::Body => {
                    let n = self.body(buf)?;
                    if n > 0 {
                        return Ok(n);
                    }
                }
                State::Between | State::Padding => {
                    if self.between()? {
                        self.state = State::Header;
                    } else {
                        self.state = State::Done;
                    }
                }
                State::Done => return Ok(0),
            }
        }
    }
}

fn fill<R: BufRead>(reader: &mut R) -> io::Result<&[u8]> {
    // Asked again once it succeeds: a borrow returned from inside the loop would outlive it.
    while let Err(e) = reader.fill_buf() {
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    reader.fill_buf()
}

fn read_exact<R: Read>(reader: &mut R, buf: &mut [u8], place: &str) -> io::Result<()> {
    reader.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            cut_short(place)
        } else {
            e
        }
    })
}

fn invalid(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.to_owned())
}

fn cut_short(place: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("the data ends {place} (the file is cut short)"),
    )
}

/// Compares a member's CRC-32 and size, as decompressed, with its trailer.
fn check(crc: u32, size: u64, end: MemberEnd) -> Result<(), String> {
    if crc != end.crc {
        return Err(format!(
            "the member ending at byte {} of the decompressed data fails its CRC-32 check \
             ({crc:08x}, the trailer says {:08x}): the data is corrupt",
            end.at, end.crc
        ));
    }
    // The trailer holds the size modulo 2^32.
    #[allow(clippy::cast_possible_truncation)]
    if size as u32 != end.size {
        return Err(format!(
            "the member ending at byte {} of the decompressed data holds {size} bytes, \
             the trailer says {} (modulo 2^32): the data is corrupt",
            end.at, end.size
        ));
    }
    Ok(())
}

/// A piece of the decompressed stream of a gzip input, in stream order, as a chunk carries
/// it from the reader through a worker to the collector.
#[derive(Clone, Debug)]
pub(crate) enum Piece {
    /// Bytes of the chunk's buffer, for the worker to hash.
    Kept(Range<usize>),
    /// Bytes already hashed, and how many (by the worker; or by the reader, for the bytes
    /// of a line too long to keep).
    Hashed(Hasher, u64),
    /// A member ends here.
    End(MemberEnd),
}

/// The worker's part: hashes the chunk's kept bytes.
pub(crate) fn hash_pieces(pieces: &mut [Piece], buf: &[u8]) {
    for piece in pieces {
        if let Piece::Kept(range) = piece {
            let mut hasher = Hasher::new();
            hasher.update(&buf[range.clone()]);
            *piece = Piece::Hashed(hasher, range.len() as u64);
        }
    }
}

/// The reader's part: cuts the bytes `at..at + len` of the decompressed stream at the
/// member ends among `ends` (those up to `at + len` are taken), into `pieces`. The bytes
/// are held in a chunk's buffer from its start (`dropped` is `None`: a worker hashes them),
/// or are `dropped`, no chunk holding them: hashed here.
pub(crate) fn cut(
    pieces: &mut Vec<Piece>,
    ends: &mut VecDeque<MemberEnd>,
    at: u64,
    len: usize,
    dropped: Option<&[u8]>,
) {
    let mut from = 0usize;
    let push = |pieces: &mut Vec<Piece>, range: Range<usize>| {
        if range.is_empty() {
            return;
        }
        match dropped {
            None => pieces.push(Piece::Kept(range)),
            Some(bytes) => {
                let mut hasher = Hasher::new();
                hasher.update(&bytes[range.clone()]);
                pieces.push(Piece::Hashed(hasher, range.len() as u64));
            }
        }
    };
    while let Some(end) = ends.front().copied() {
        let Some(rel) = end.at.checked_sub(at) else {
            // An end before these bytes belongs to an earlier cut: cuts go in order.
            debug_assert!(false, "a member end at {} before the cut at {at}", end.at);
            ends.pop_front();
            continue;
        };
        let rel = usize::try_from(rel).unwrap_or(usize::MAX);
        if rel > len {
            break;
        }
        push(pieces, from..rel);
        pieces.push(Piece::End(end));
        ends.pop_front();
        from = rel;
    }
    push(pieces, from..len);
}

/// The collector's part: the running CRC-32 of the member being read, joined from pieces in
/// input order.
#[derive(Default)]
pub(crate) struct Check {
    hasher: Hasher,
    size: u64,
}

impl Check {
    /// Takes a chunk's pieces (already hashed by a worker); a member that fails its check is
    /// an error naming the input.
    pub(crate) fn take(&mut self, pieces: &[Piece], source_name: &str) -> Result<(), ScanError> {
        for piece in pieces {
            match piece {
                // A worker hashes every kept piece before the collector sees it.
                Piece::Kept(_) => debug_assert!(false, "a piece was not hashed"),
                Piece::Hashed(hasher, len) => {
                    self.hasher.combine(hasher);
                    self.size += len;
                }
                Piece::End(end) => {
                    let crc = std::mem::take(&mut self.hasher).finalize();
                    let size = std::mem::take(&mut self.size);
                    check(crc, size, *end).map_err(|message| ScanError::Gzip {
                        source_name: source_name.to_owned(),
                        error: io::Error::new(io::ErrorKind::InvalidData, message),
                    })?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::io::{Cursor, Read, Write};

    use flate2::{write::GzEncoder, Compression, GzBuilder};

    use super::{cut, hash_pieces, Check, Gunzip, MemberEnd, Piece};

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn gunzip(data: Vec<u8>) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        Gunzip::checked(Cursor::new(data)).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn members_in_a_row_and_zero_padding() {
        let mut data = gzip(b"a\n");
        data.extend(gzip(b"b\n"));
        assert_eq!(gunzip(data.clone()).unwrap(), b"a\nb\n");
        data.extend([0u8; 1000]);
        assert_eq!(gunzip(data.clone()).unwrap(), b"a\nb\n");
        let mut garbage = data.clone();
        garbage.extend(b"junk");
        assert!(gunzip(garbage).is_err());
        let mut after_padding = data;
        after_padding.extend(gzip(b"c\n"));
        assert!(
            gunzip(after_padding).is_err(),
            "gzip data after padding is not read as a member"
        );
        assert_eq!(gunzip(gzip(b"")).unwrap(), b"", "an empty member");
    }

    #[test]
    fn headers_with_every_optional_field() {
        let mut e = GzBuilder::new()
            .filename("logs.ndjson")
            .comment("a comment")
            .extra(vec![7; 300])
            .write(Vec::new(), Compression::default());
        e.write_all(b"{\"a\":1}\n").unwrap();
        let data = e.finish().unwrap();
        assert_eq!(gunzip(data).unwrap(), b"{\"a\":1}\n");
        // FHCRC, written by hand: the low 16 bits of the header's CRC-32.
        let body = gzip(b"x\n");
        let mut header = body[..10].to_vec();
        header[3] |= 0x02;
        let crc = crc32fast::hash(&header) & 0xffff;
        let mut data = header.clone();
        data.extend(u16::try_from(crc).unwrap().to_le_bytes());
        data.extend(&body[10..]);
        assert_eq!(gunzip(data.clone()).unwrap(), b"x\n");
        data[10] ^= 1;
        let err = gunzip(data).unwrap_err();
        assert!(err.to_string().contains("CRC-16"), "{err}");
    }

    #[test]
    fn a_wrong_trailer_is_an_error_naming_what_failed() {
        let good = gzip(b"hello\n");
        let n = good.len();
        let mut bad_crc = good.clone();
        bad_crc[n - 8] ^= 1;
        assert!(gunzip(bad_crc).unwrap_err().to_string().contains("CRC-32"));
        let mut bad_size = good.clone();
        bad_size[n - 4] ^= 1;
        assert!(gunzip(bad_size).unwrap_err().to_string().contains("the trailer says 7"));
        let mut method = good.clone();
        method[2] = 9;
        assert!(gunzip(method).unwrap_err().to_string().contains("compression method 9"));
        let err = gunzip(good[..n - 3].to_vec()).unwrap_err();
        assert!(err.to_string().contains("cut short"), "{err}");
    }

    /// The pieces of a stream cut anywhere, hashed and joined in order, check exactly the
    /// members the stream holds.
    #[test]
    fn pieces_cut_anywhere_join_into_each_members_check() {
        let members: [&[u8]; 4] = [b"first member\n", b"", b"second\nmember\n", b"3\n"];
        let mut data = Vec::new();
        for m in members {
            data.extend(gzip(m));
        }
        let mut reader = Gunzip::deferred(Cursor::new(data));
        let mut stream = Vec::new();
        reader.read_to_end(&mut stream).unwrap();
        let ends: VecDeque<MemberEnd> = reader.take_ends().collect();
        assert_eq!(ends.len(), 4);
        for cuts in [vec![5usize, 13, 13, 20], vec![1, 2, 3], vec![29], vec![0, 29]] {
            for drop_middle in [false, true] {
                let mut ends = ends.clone();
                let mut check = Check::default();
                let mut at = 0usize;
                let mut bounds = cuts.clone();
                bounds.push(stream.len());
                for (i, &to) in bounds.iter().enumerate() {
                    let to = to.max(at);
                    let chunk = &stream[at..to];
                    let mut pieces = Vec::new();
                    if drop_middle && i == 1 {
                        cut(&mut pieces, &mut ends, at as u64, chunk.len(), Some(chunk));
                    } else {
                        cut(&mut pieces, &mut ends, at as u64, chunk.len(), None);
                    }
                    hash_pieces(&mut pieces, chunk);
                    assert!(pieces.iter().all(|p| !matches!(p, Piece::Kept(_))));
                    check.take(&pieces, "mem").unwrap();
                    at = to;
                }
                assert!(ends.is_empty(), "every end was taken: {cuts:?}");
            }
        }
        // A byte changed after inflating fails the member it is in.
        let mut ends = ends.clone();
        let mut bad = stream.clone();
        bad[15] ^= 1;
        let mut pieces = Vec::new();
        cut(&mut pieces, &mut ends, 0, bad.len(), None);
        hash_pieces(&mut pieces, &bad);
        let err = Check::default().take(&pieces, "mem.gz").unwrap_err();
        assert!(
            err.to_string().contains("mem.gz") && err.to_string().contains("CRC-32"),
            "{err}"
        );
    }
}
