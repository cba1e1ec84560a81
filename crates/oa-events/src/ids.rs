//! Random identifiers for invocations (UUIDv4), drawn from the standard library's per-instance random hasher
//! keys: unique within a run without a global counter or an extra dependency.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// A random UUIDv4 in canonical hyphenated form (the ids the runtime mints, exposed so observers that need ids of
/// their own draw them the same way).
///
/// ```
/// let id = oa_events::random_uuid();
/// assert_eq!((id.len(), &id[14..15]), (36, "4"));
/// ```
pub fn random_uuid() -> String {
    let bits = random_bits();
    // Version 4 in the 13th hex digit, the RFC 4122 variant in the 17th.
    let bits = (bits & !(0xf << 76)) | (0x4 << 76);
    let bits = (bits & !(0xc << 60)) | (0x8 << 60);
    hyphenated(bits)
}

/// 128 bits from one hasher keyed afresh (each `RandomState` of a thread takes new keys), finished twice: one
/// draw of the keys rather than two.
fn random_bits() -> u128 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0x243f_6a88_85a3_08d3);
    let high = hasher.finish();
    hasher.write_u64(0x1319_8a2e_0370_7344);
    (u128::from(high) << 64) | u128::from(hasher.finish())
}

/// `bits` as 32 lowercase hex digits in the 8-4-4-4-12 groups of a UUID: each half's digits written into a
/// fixed buffer by a loop of fixed length (unrolled; a shift of the whole `u128` per digit cost more), the groups
/// copied into place and the text copied out once (a `push` per digit, with its capacity check and UTF-8
/// encoding, cost more than the draw).
fn hyphenated(bits: u128) -> String {
    let mut digits = [0; 32];
    hex_digits(&mut digits[..16], (bits >> 64) as u64);
    hex_digits(&mut digits[16..], bits as u64);
    let mut text = [b'-'; 36];
    text[..8].copy_from_slice(&digits[..8]);
    text[9..13].copy_from_slice(&digits[8..12]);
    text[14..18].copy_from_slice(&digits[12..16]);
    text[19..23].copy_from_slice(&digits[16..20]);
    text[24..].copy_from_slice(&digits[20..]);
    // Hex digits and hyphens are ASCII: the lossy branch is never taken (`from_utf8_lossy` itself walked the text
    // in chunks, a third of the id's cost).
    String::from_utf8(text.to_vec())
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// Writes `word` into `out` (16 bytes) as 16 lowercase hex digits, most significant first.
fn hex_digits(out: &mut [u8], word: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (at, byte) in out.iter_mut().enumerate().take(16) {
        *byte = HEX[((word >> ((15 - at) * 4)) & 0xf) as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_groups_are_the_hex_digits_format_writes() {
        for bits in [0, 1, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, u128::MAX] {
            let text = format!("{bits:032x}");
            let expected = format!(
                "{}-{}-{}-{}-{}",
                &text[..8],
                &text[8..12],
                &text[12..16],
                &text[16..20],
                &text[20..]
            );
            assert_eq!(hyphenated(bits), expected);
        }
    }

    #[test]
    fn invocation_ids_are_distinct_uuid_v4s() {
        let first = random_uuid();
        let second = random_uuid();
        assert_ne!(first, second);
        assert_eq!(first.len(), 36);
        assert_eq!(&first[14..15], "4");
        assert!(matches!(&first[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(first.matches('-').count(), 4);
    }
}
