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
    let text = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &text[..8],
        &text[8..12],
        &text[12..16],
        &text[16..20],
        &text[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
