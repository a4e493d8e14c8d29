//! The first pass over a line: where its quotes are, and which special bytes it holds.
//!
//! [`index`] reads the line once, 64 bytes at a time, and finds
//!
//! - the position of every `"` (written to a list, in order), and
//! - whether the line holds a backslash, and whether it holds a byte below 0x20 or above 0x7F
//!   (a control character or non-ASCII, told apart by a second pass only when one is there).
//!
//! On a line without backslashes every quote opens or closes a string, so the structural
//! walk of [`compiled`](super::compiled) takes each string's end from the list instead of
//! searching the bytes for it: finding the end of the next string then depends on nothing
//! that the walk computes, and the processor can work on several members at once.
//!
//! On x86_64 the pass is vectorised by hand, with AVX-512 (byte instructions and VBMI2) or
//! AVX2, whichever the processor has (detected at run time); elsewhere a portable version
//! does the same work. All give the same results (tested against the plain definition on
//! random lines, of every length and address alignment around the 32- and 64-byte steps).
//! This module is the only place in the crate with `unsafe` code: the vector loads and
//! stores, each on memory a slice bounds, and the calls of the target-feature functions,
//! each after the run-time check of its features.
#![allow(unsafe_code)]
// The helpers below are inlined into the target-feature functions, so that they are compiled
// with those features (`tzcnt`, `popcnt`).
#![allow(clippy::inline_always)]
// Every load and store here is an unaligned one (`loadu`, `storeu`): the pointer casts only
// give the intrinsics the types they take.
#![allow(clippy::cast_ptr_alignment)]

/// Which special bytes a line holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Bytes {
    /// A byte below 0x20 (a control character, or tab / CR / LF whitespace).
    pub(super) control: bool,
    pub(super) backslash: bool,
    pub(super) non_ascii: bool,
}

impl Bytes {
    /// The flags from the two summaries of the vector pass: whether any byte is below 0x20
    /// or above 0x7F (`special`), and whether any is a backslash.
    fn from_summary(line: &[u8], special: bool, backslash: bool) -> Bytes {
        Bytes {
            control: special && line.iter().any(|&b| b < 0x20),
            backslash,
            non_ascii: special && !line.is_ascii(),
        }
    }
}

/// The same flags without the quotes, for lines longer than [`MAX_LINE`]: one pass
/// written so that the compiler vectorises it.
pub(super) fn classify(line: &[u8]) -> Bytes {
    fn fold(bytes: &[u8]) -> (u8, u8) {
        let (mut special, mut backslash) = (0u8, 0u8);
        for &b in bytes {
            special |= u8::from(b.wrapping_sub(0x20) >= 0x60);
            backslash |= u8::from(b == b'\\');
        }
        (special, backslash)
    }
    let (mut special, mut backslash) = (false, false);
    let mut chunks = line.chunks_exact(64);
    for chunk in &mut chunks {
        let (s, b) = fold(chunk);
        special |= s != 0;
        backslash |= b != 0;
    }
    let (s, b) = fold(chunks.remainder());
    Bytes::from_summary(line, special || s != 0, backslash || b != 0)
}

/// The longest line [`index`] takes. The quote list then holds at most this many
/// positions (u32, 1 MiB), whatever the line; longer lines are read without the list.
pub(super) const MAX_LINE: usize = 256 << 10;

/// Writes the position of every `"` of `line` to `quotes[..n]` and returns `n` with the
/// line's [`Bytes`]. `quotes` is scratch space, grown as needed (its length is not `n`).
///
/// # Panics
///
/// If the line is longer than [`MAX_LINE`].
pub(super) fn index(line: &[u8], quotes: &mut Vec<u32>) -> (usize, Bytes) {
    assert!(
        line.len() <= MAX_LINE,
        "a line of {} bytes is too long to index",
        line.len()
    );
    #[cfg(target_arch = "x86_64")]
    {
        if avx512::available() {
            // SAFETY: the processor has the features `avx512::index` is compiled for
            // (checked just above), its only requirement beyond its signature.
            return unsafe { avx512::index(line, quotes) };
        }
        if avx2::available() {
            // SAFETY: the processor has the features `avx2::index` is compiled for (checked
            // just above), its only requirement beyond its signature.
            return unsafe { avx2::index(line, quotes) };
        }
    }
    portable::index(line, quotes)
}

/// Appends the positions of the bits set in `mask` (bit `i` is position `base + i`) to
/// `out[*n..]`, which has room for 64 more. Writes sixteen without looking at how many bits
/// there are (the extra writes land past the new end and are overwritten later): a block of
/// a log line holds about eight quotes, more or fewer, so a branch on "more than eight"
/// would be mispredicted half the time, and one on "more than sixteen" hardly ever is.
#[inline(always)]
fn flatten(mut mask: u64, base: u32, out: &mut [u32], n: &mut usize) {
    let count = mask.count_ones() as usize;
    let out = &mut out[*n..*n + 64];
    let mut next = |slot: &mut u32| {
        *slot = base + mask.trailing_zeros();
        mask &= mask.wrapping_sub(1);
    };
    out[..16].iter_mut().for_each(&mut next);
    if count > 16 {
        out[16..count].iter_mut().for_each(&mut next);
    }
    *n += count;
}

/// Makes room in `quotes` for the positions of one more block after the first `n`.
#[inline(always)]
fn reserve(quotes: &mut Vec<u32>, n: usize) {
    if quotes.len() < n + 64 {
        let len = (n + 64).max(2 * quotes.len());
        quotes.resize(len, 0);
    }
}

/// The line's blocks of 64 bytes with the position of their first byte. The last bytes
/// (fewer than 64) are copied to `tail`, padded with spaces to a whole block: a space is
/// neither a quote, a backslash nor special.
#[inline(always)]
fn blocks<'a>(line: &'a [u8], tail: &'a mut [u8; 64]) -> impl Iterator<Item = (&'a [u8; 64], u32)> {
    let whole = line.chunks_exact(64);
    let rest = whole.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()..].fill(b' ');
    let tail = (!rest.is_empty()).then_some(&*tail);
    whole
        .map(|b| <&[u8; 64]>::try_from(b).expect("64 bytes"))
        .chain(tail)
        .zip((0..).step_by(64))
}

/// The same pass, one byte at a time, for processors without AVX2 (and as the reference
/// the vector version is tested against).
pub(super) mod portable {
    use super::{blocks, flatten, reserve, Bytes};

    /// The quote mask of one block, and whether it holds special bytes and backslashes.
    #[inline(always)]
    fn block(block: &[u8; 64]) -> (u64, bool, bool) {
        let (mut quotes, mut special, mut backslash) = (0u64, 0u8, 0u8);
        for (i, &b) in block.iter().enumerate() {
            quotes |= u64::from(b == b'"') << i;
            // Control characters wrap around to 0xE0 and above, non-ASCII bytes land at
            // 0x60 and above.
            special |= u8::from(b.wrapping_sub(0x20) >= 0x60);
            backslash |= u8::from(b == b'\\');
        }
        (quotes, special != 0, backslash != 0)
    }

    /// See [`index`](super::index).
    pub(crate) fn index(line: &[u8], quotes: &mut Vec<u32>) -> (usize, Bytes) {
        let (mut n, mut special, mut backslash) = (0, false, false);
        for (bytes, base) in blocks(line, &mut [0; 64]) {
            let (mask, s, b) = block(bytes);
            special |= s;
            backslash |= b;
            reserve(quotes, n);
            flatten(mask, base, quotes, &mut n);
        }
        (n, Bytes::from_summary(line, special, backslash))
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_cvtepu8_epi32, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setzero_si256,
        _mm256_storeu_si256, _mm256_testz_si256, _mm_cvtsi64_si128,
    };

    use super::{blocks, reserve, Bytes};

    /// For each byte, the positions of its set bits, packed into the low bytes of a word
    /// (`0b1010_0001` gives 0, 5, 7): the quote positions of 8 bytes of a line, in one load.
    const SET_BITS: [u64; 256] = {
        let mut table = [0u64; 256];
        let mut byte = 0;
        while byte < 256 {
            let (mut packed, mut count, mut bit) = (0u64, 0, 0u64);
            while bit < 8 {
                if byte >> bit & 1 == 1 {
                    packed |= bit << (8 * count);
                    count += 1;
                }
                bit += 1;
            }
            table[byte] = packed;
            byte += 1;
        }
        table
    };

    /// Whether this processor can run [`index`]. (Every processor with AVX2 has the other
    /// two, but a virtual machine may hide any of them.)
    pub(crate) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    /// See [`index`](super::index). Safe to call only where [`available`] says so.
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub(crate) fn index(line: &[u8], quotes: &mut Vec<u32>) -> (usize, Bytes) {
        let (quote, backslash, below) = (
            _mm256_set1_epi8(b'"'.cast_signed()),
            _mm256_set1_epi8(b'\\'.cast_signed()),
            _mm256_set1_epi8(0x20),
        );
        let (mut specials, mut backslashes) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        let mut n = 0;
        for (bytes, base) in blocks(line, &mut [0; 64]) {
            // SAFETY: `bytes` is 64 readable bytes: the two unaligned loads read its first
            // and its second 32.
            let (lo, hi) = unsafe {
                (
                    _mm256_loadu_si256(bytes.as_ptr().cast::<__m256i>()),
                    _mm256_loadu_si256(bytes.as_ptr().add(32).cast::<__m256i>()),
                )
            };
            // `movemask` gives the 32 bits as an i32: reinterpret them.
            let mask = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, quote)).cast_unsigned())
                | u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, quote)).cast_unsigned()) << 32;
            // As signed bytes, both control characters (0..0x20) and non-ASCII bytes
            // (negative) are below 0x20.
            specials = _mm256_or_si256(
                specials,
                _mm256_or_si256(_mm256_cmpgt_epi8(below, lo), _mm256_cmpgt_epi8(below, hi)),
            );
            backslashes = _mm256_or_si256(
                backslashes,
                _mm256_or_si256(_mm256_cmpeq_epi8(lo, backslash), _mm256_cmpeq_epi8(hi, backslash)),
            );
            // The quotes' positions, 8 bytes of the block at a time: a table gives the offsets
            // of the quotes among them, widened to u32 and moved to their place. Eight
            // positions are written each time and the next eight overwrite the unused ones:
            // no loop over the mask's bits, no branch on how many there are.
            reserve(quotes, n);
            let out = &mut quotes[n..n + 64];
            let mut written = 0;
            for group in 0..8 {
                let bits = (mask >> (8 * group)).to_le_bytes()[0];
                let offsets = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(SET_BITS[usize::from(bits)].cast_signed()));
                let positions = _mm256_add_epi32(offsets, _mm256_set1_epi32((base + 8 * group).cast_signed()));
                // The groups before this one wrote at most 8 positions each: `written + 8`
                // is at most 64, and the slice below is in bounds.
                let at = &mut out[written..written + 8];
                // SAFETY: `at` is 8 u32 (32 bytes), what the unaligned store writes.
                unsafe { _mm256_storeu_si256(at.as_mut_ptr().cast::<__m256i>(), positions) };
                written += bits.count_ones() as usize;
            }
            n += written;
        }
        let special = _mm256_testz_si256(specials, specials) == 0;
        let backslash = _mm256_testz_si256(backslashes, backslashes) == 0;
        (n, Bytes::from_summary(line, special, backslash))
    }
}

/// With AVX-512 (byte instructions and `vpcompressb`, as on Ice Lake and Zen 4 and later),
/// a block is one 64-byte register: comparisons give the 64-bit masks directly, and the
/// quotes' positions are packed with one compress instruction instead of a loop over the
/// mask's bits.
#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use std::arch::x86_64::{
        __m128i, __m512i, _mm512_add_epi32, _mm512_castsi512_si128, _mm512_cmpeq_epi8_mask, _mm512_cmplt_epi8_mask,
        _mm512_cvtepu8_epi32, _mm512_extracti32x4_epi32, _mm512_loadu_si512, _mm512_mask_loadu_epi8,
        _mm512_maskz_compress_epi8, _mm512_set1_epi32, _mm512_set1_epi8, _mm512_storeu_si512,
    };

    use super::{reserve, Bytes};

    /// 0, 1, ..., 63: the offsets within a block, packed by the quote mask.
    const OFFSETS: [u8; 64] = {
        let mut offsets = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            #[allow(clippy::cast_possible_truncation)] // i < 64
            {
                offsets[i] = i as u8;
            }
            i += 1;
        }
        offsets
    };

    /// Whether this processor can run [`index`].
    pub(crate) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    /// See [`index`](super::index). Safe to call only where [`available`] says so.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
    pub(crate) fn index(line: &[u8], quotes: &mut Vec<u32>) -> (usize, Bytes) {
        let (quote, backslash, below) = (
            _mm512_set1_epi8(b'"'.cast_signed()),
            _mm512_set1_epi8(b'\\'.cast_signed()),
            _mm512_set1_epi8(0x20),
        );
        // SAFETY: `OFFSETS` is 64 readable bytes.
        let offsets = unsafe { _mm512_loadu_si512(OFFSETS.as_ptr().cast::<__m512i>()) };
        let (mut specials, mut backslashes) = (0u64, 0u64);
        let mut n = 0;
        let mut block = |v: __m512i, base: u32| {
            let mask = _mm512_cmpeq_epi8_mask(v, quote);
            // As signed bytes, both control characters (0..0x20) and non-ASCII bytes
            // (negative) are below 0x20.
            specials |= _mm512_cmplt_epi8_mask(v, below);
            backslashes |= _mm512_cmpeq_epi8_mask(v, backslash);
            // The offsets of the quotes, side by side in the low bytes; then 16 at a time
            // widened to u32 and moved to the block's position.
            let packed = _mm512_maskz_compress_epi8(mask, offsets);
            let base = _mm512_set1_epi32(base.cast_signed()); // base <= MAX_LINE: positive
            let count = mask.count_ones() as usize;
            reserve(quotes, n);
            let out = &mut quotes[n..n + 64];
            let mut put = |i: usize, offsets: __m128i| {
                let positions = _mm512_add_epi32(_mm512_cvtepu8_epi32(offsets), base);
                // SAFETY: `out[16 * i..]` has room for 16 u32 (64 bytes): `out` holds 64.
                unsafe { _mm512_storeu_si512(out[16 * i..16 * i + 16].as_mut_ptr().cast::<__m512i>(), positions) };
            };
            // Sixteen whatever the count (see `flatten` for why), the rest when there are.
            put(0, _mm512_castsi512_si128(packed));
            if count > 16 {
                put(1, _mm512_extracti32x4_epi32::<1>(packed));
                if count > 32 {
                    put(2, _mm512_extracti32x4_epi32::<2>(packed));
                    put(3, _mm512_extracti32x4_epi32::<3>(packed));
                }
            }
            n += count;
        };
        let mut whole = line.chunks_exact(64);
        let mut base = 0;
        for bytes in &mut whole {
            // SAFETY: `bytes` is 64 readable bytes.
            block(unsafe { _mm512_loadu_si512(bytes.as_ptr().cast::<__m512i>()) }, base);
            base += 64;
        }
        let rest = whole.remainder();
        if !rest.is_empty() {
            // The last bytes (fewer than 64), padded with spaces (see `blocks`) by a masked
            // load, which reads only the bytes its mask selects.
            let selected = (1u64 << rest.len()) - 1;
            // SAFETY: the mask selects the `rest.len()` readable bytes of `rest`; the bytes
            // it does not select are not read (nor can they fault).
            let v = unsafe {
                _mm512_mask_loadu_epi8(
                    _mm512_set1_epi8(b' '.cast_signed()),
                    selected,
                    rest.as_ptr().cast::<i8>(),
                )
            };
            block(v, base);
        }
        (n, Bytes::from_summary(line, specials != 0, backslashes != 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain definition.
    fn naive(line: &[u8]) -> (Vec<u32>, Bytes) {
        let quotes = (0u32..).zip(line).filter(|(_, &b)| b == b'"').map(|(i, _)| i).collect();
        let bytes = Bytes {
            control: line.iter().any(|&b| b < 0x20),
            backslash: line.contains(&b'\\'),
            non_ascii: !line.is_ascii(),
        };
        (quotes, bytes)
    }

    fn run(f: fn(&[u8], &mut Vec<u32>) -> (usize, Bytes), line: &[u8], quotes: &mut Vec<u32>) -> (Vec<u32>, Bytes) {
        let (n, bytes) = f(line, quotes);
        (quotes[..n].to_vec(), bytes)
    }

    fn check_all(line: &[u8], quotes: &mut Vec<u32>) {
        let expected = naive(line);
        assert_eq!(run(portable::index, line, quotes), expected, "portable, {line:?}");
        assert_eq!(run(index, line, quotes), expected, "dispatch, {line:?}");
        #[cfg(target_arch = "x86_64")]
        if avx512::available() {
            let avx512 = |line: &[u8], quotes: &mut Vec<u32>| {
                // SAFETY: the processor has the features (checked just above).
                unsafe { avx512::index(line, quotes) }
            };
            assert_eq!(run(avx512, line, quotes), expected, "avx512, {line:?}");
        }
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            let avx2 = |line: &[u8], quotes: &mut Vec<u32>| {
                // SAFETY: the processor has the features (checked just above).
                unsafe { avx2::index(line, quotes) }
            };
            assert_eq!(run(avx2, line, quotes), expected, "avx2, {line:?}");
        }
    }

    /// Bytes that matter to the pass, and a few that do not.
    fn byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            4 => Just(b'"'),
            1 => Just(b'\\'),
            4 => Just(b'a'),
            1 => Just(b' '),
            1 => prop_oneof![Just(0x00u8), Just(0x1f), Just(0x20), Just(0x7f), Just(0x80), Just(0xff)],
            1 => any::<u8>(),
        ]
    }

    proptest! {
        #[test]
        fn every_version_finds_the_same_quotes_and_bytes(
            line in proptest::collection::vec(byte(), 0..300),
        ) {
            let mut quotes = Vec::new();
            check_all(&line, &mut quotes);
        }
    }

    #[test]
    fn every_length_and_position_around_the_block_steps() {
        let mut quotes = Vec::new();
        for len in (0..=200).chain([255, 256, 257, 1000, 4095, 4096, 4097]) {
            let plain = vec![b'x'; len];
            check_all(&plain, &mut quotes);
            // One special byte, or a quote, at every position (on longer lines, every position
            // next to a multiple of 32): each must be seen.
            let near_a_step = |at: &usize| len <= 130 || matches!(at % 32, 0 | 1 | 31);
            for at in (0..len).filter(near_a_step) {
                for b in [b'"', b'\\', 0x01, 0x1f, 0x7f, 0x80, 0xff] {
                    let mut line = plain.clone();
                    line[at] = b;
                    check_all(&line, &mut quotes);
                }
            }
            // All quotes: the list takes a whole block of positions at once.
            check_all(&vec![b'"'; len], &mut quotes);
        }
    }

    proptest! {
        /// The same line at every address alignment (the loads are unaligned ones).
        #[test]
        fn the_address_of_the_line_does_not_matter(
            line in proptest::collection::vec(byte(), 0..200),
        ) {
            let mut quotes = Vec::new();
            let mut buffer = vec![b'"'; line.len() + 128];
            for offset in 0..64 {
                buffer[offset..offset + line.len()].copy_from_slice(&line);
                check_all(&buffer[offset..offset + line.len()], &mut quotes);
                buffer[offset] = b'"';
            }
        }
    }

    #[test]
    fn the_longest_line_is_indexed_and_a_longer_one_refused() {
        let mut quotes = Vec::new();
        let line = vec![b'"'; MAX_LINE];
        let (n, _) = index(&line, &mut quotes);
        assert_eq!(n, MAX_LINE);
        assert_eq!(quotes[n - 1] as usize, MAX_LINE - 1);
        let too_long = vec![b' '; MAX_LINE + 1];
        assert!(std::panic::catch_unwind(move || index(&too_long, &mut Vec::new())).is_err());
    }
}
