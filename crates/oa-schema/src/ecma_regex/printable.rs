//! Runs of printable ASCII text taken eight bytes at a time, for an anchored pattern's class that holds every
//! printable character (FHIR's `^[ \r\n\t\S]+$` on every string, `\S*`): a byte-by-byte table test was a fifth of
//! `is_valid` on a FHIR resource. The word tests are the classic "has a byte less than n" and "has a byte more
//! than n" bit tricks, exact as a yes/no for the whole word.

/// `0x01` in every byte.
const ONES: u64 = u64::from_ne_bytes([1; 8]);
/// The high bit of every byte.
const HIGHS: u64 = ONES << 7;

/// How many leading bytes of `bytes`, a multiple of eight and at most `limit`, are all within `from..=b'~'`
/// (`from` is `b' '` or `b'!'`). The caller tests the rest byte by byte.
pub(super) fn run(bytes: &[u8], limit: usize, from: u8) -> usize {
    let mut taken = 0;
    for chunk in bytes.chunks_exact(8) {
        if taken + 8 > limit {
            break;
        }
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        if !all_within(u64::from_le_bytes(word), from) {
            break;
        }
        taken += 8;
    }
    taken
}

/// Whether every byte of `word` is within `from..=b'~'` (`from` at most 128).
#[inline]
fn all_within(word: u64, from: u8) -> bool {
    let below = word.wrapping_sub(ONES * u64::from(from)) & !word & HIGHS;
    // A byte above `~` (0x7e) reaches the high bit when 1 is added, or has it already.
    let above = (word.wrapping_add(ONES) | word) & HIGHS;
    below | above == 0
}

#[cfg(test)]
mod tests {
    use super::{all_within, run};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn words_agree_with_bytes(bytes in prop::array::uniform8(prop_oneof![
            0x1e_u8..0x23,
            0x7c_u8..0x82,
            any::<u8>(),
        ]), space in any::<bool>()) {
            let from = if space { b' ' } else { b'!' };
            let expected = bytes.iter().all(|byte| (from..=b'~').contains(byte));
            prop_assert_eq!(all_within(u64::from_le_bytes(bytes), from), expected, "{:?}", bytes);
        }

        #[test]
        fn runs_stop_at_the_first_word_with_another_byte_and_at_the_limit(
            text in "[a ~!\\u{7f}\\u{1f}é]{0,40}",
            limit in 0_usize..48,
        ) {
            let bytes = text.as_bytes();
            let taken = run(bytes, limit, b' ');
            let printable = bytes.iter().take_while(|byte| (b' '..=b'~').contains(*byte)).count();
            prop_assert_eq!(taken, printable.min(limit).min(bytes.len()) / 8 * 8, "{:?} {}", text, limit);
        }
    }
}
