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
    let draw = |salt: u64| {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(salt);
        hasher.finish()
    };
    let bits = (u128::from(draw(0x243f_6a88_85a3_08d3)) << 64) | u128::from(draw(0x1319_8a2e_0370_7344));
    // Version 4 in the 13th hex digit, the RFC 4122 variant in the 17th.
    let bits = (bits & !(0xf << 76)) | (0x4 << 76);
    let bits = (bits & !(0xc << 60)) | (0x8 << 60);
    hyphenated(bits)
}

/// `bits` as 32 lowercase hex digits in the 8-4-4-4-12 groups of a UUID, written digit by digit (`format!` twice
/// cost more than the draw, on every observed call).
fn hyphenated(bits: u128) -> String {
    let mut id = String::with_capacity(36);
    for (digit_idx, shift) in (0..32u32).rev().enumerate() {
        if matches!(digit_idx, 8 | 12 | 16 | 20) {
            id.push('-');
        }
        let nibble = (bits >> (shift * 4)) & 0xf;
        id.push(char::from_digit(nibble as u32, 16).unwrap_or('0'));
    }
    id
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
