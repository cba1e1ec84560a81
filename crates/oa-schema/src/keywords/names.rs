//! A hashed index of a schema's list of names (`properties`, a shape's table, a string `enum`), for the yes/no
//! evaluator.
//!
//! Small objects meet long lists: a SchemaStore config's array of 3-member objects against a 21-name `properties`,
//! a key binding against a 120-string `enum`. A merge walks the list up to the last member, and an `enum` scan
//! compares every option; a lookup here costs a few word loads, one multiply and usually one comparison per member,
//! whatever the list's length. Lists shorter than [`NameIndex::MIN_NAMES`] are not indexed: a scan is as cheap.

/// A name's length and its first and last eight bytes (four for shorter names, the bytes themselves for names of
/// up to three): two names of at most 16 bytes are equal exactly when their heads are, and longer ones differ
/// elsewhere only in `[8..len - 8]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Head {
    len: usize,
    first: u64,
    last: u64,
}

impl Head {
    /// The longest name a head decides alone.
    const WHOLE: usize = 16;

    #[inline(always)]
    fn of(name: &str) -> Self {
        let bytes = name.as_bytes();
        let len = bytes.len();
        let (first, last) = match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
            (Some(first), Some(last)) => (u64::from_le_bytes(*first), u64::from_le_bytes(*last)),
            _ => match (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
                (Some(first), Some(last)) => (
                    u64::from(u32::from_le_bytes(*first)),
                    u64::from(u32::from_le_bytes(*last)),
                ),
                _ => (
                    bytes
                        .iter()
                        .rev()
                        .fold(0, |packed, byte| (packed << 8) | u64::from(*byte)),
                    0,
                ),
            },
        };
        Self { len, first, last }
    }

    /// The slot this head starts probing at, for a table of `64 - shift` bits.
    #[inline(always)]
    fn slot(self, seed: u64, shift: u32) -> usize {
        let mixed = (self.first ^ self.last.rotate_left(31) ^ self.len as u64).wrapping_mul(seed);
        // The shift leaves at most the table's bits, which fit a usize.
        (mixed >> shift) as usize
    }
}

/// Whether looking up each of an object's `n_members` members beats a merge of them with `n_names` sorted names,
/// which walks the names up to the last member (measured: up to a third as many members as names; twice, a
/// quarter and all members up to the number of names each ran more instructions on the small-schema set).
#[inline]
pub(crate) fn worth_index(n_names: usize, n_members: usize) -> bool {
    n_members.saturating_mul(3) <= n_names
}

/// Multipliers tried in turn; the index keeps the one with the shortest probes.
const SEEDS: [u64; 4] = [
    0x9e37_79b9_7f4a_7c15,
    0xff51_afd7_ed55_8ccd,
    0xc4ce_b9fe_1a85_ec53,
    0x2545_f491_4f6c_dd1d,
];

/// The names of a list, each with a value, found by name.
#[derive(Debug)]
pub(crate) struct NameIndex<T> {
    /// One past each name's position in `heads`, at the slot its probe ends on (0: empty). A power of two long,
    /// at most half full, so that every probe meets an empty slot soon.
    slots: Box<[u32]>,
    /// By position: the name's head, its value, and its text when the head does not decide it.
    heads: Box<[(Head, T)]>,
    long_names: Box<[Option<Box<str>>]>,
    seed: u64,
    shift: u32,
}

impl<T> NameIndex<T> {
    /// The fewest names worth an index.
    pub(crate) const MIN_NAMES: usize = 8;

    /// The most slots a name's probe visits on average in an index that is built (random heads average 1.5).
    const MAX_PROBES: usize = 4;

    /// An index of `entries` (names without repeats; a repeated name finds the first), or `None` when there are
    /// too few to be worth one, or too many for 32-bit slots.
    pub(crate) fn new<'n>(entries: impl IntoIterator<Item = (&'n str, T)>) -> Option<Self> {
        let (names, values): (Vec<&str>, Vec<T>) = entries.into_iter().unzip();
        if names.len() < Self::MIN_NAMES || u32::try_from(names.len()).is_err() {
            return None;
        }
        let bits = (2 * names.len()).next_power_of_two().trailing_zeros();
        let shift = 64 - bits;
        let heads: Vec<Head> = names.iter().map(|name| Head::of(name)).collect();
        let (mut best, mut fewest) = (None, usize::MAX);
        let mut seed = SEEDS[0];
        for candidate in SEEDS {
            let Some((slots, probes)) = Self::place(&heads, candidate, shift) else {
                continue;
            };
            if probes < fewest {
                (best, fewest, seed) = (Some(slots), probes, candidate);
            }
            if fewest == heads.len() {
                break;
            }
        }
        Some(Self {
            slots: best?.into_boxed_slice(),
            long_names: names
                .iter()
                .map(|name| (name.len() > Head::WHOLE).then(|| Box::from(*name)))
                .collect(),
            heads: heads.into_iter().zip(values).collect(),
            seed,
            shift,
        })
    }

    /// The slots for `heads` with `seed` (linear probing), and the slots every name's probe visits in all; `None`
    /// past [`Self::MAX_PROBES`] per name on average (names built to share their heads would otherwise make the
    /// build quadratic and every lookup a scan: such a list gets no index).
    fn place(heads: &[Head], seed: u64, shift: u32) -> Option<(Vec<u32>, usize)> {
        let mut slots = vec![0_u32; 1 << (64 - shift)];
        let mask = slots.len() - 1;
        let budget = heads.len().saturating_mul(Self::MAX_PROBES);
        let mut probes = 0;
        for (position, head) in (1_u32..).zip(heads) {
            let mut at = head.slot(seed, shift);
            loop {
                probes += 1;
                if probes > budget {
                    return None;
                }
                match slots.get_mut(at) {
                    Some(slot) if *slot == 0 => {
                        *slot = position;
                        break;
                    }
                    _ => at = (at + 1) & mask,
                }
            }
        }
        Some((slots, probes))
    }

    /// The value of `key`, if the list names it.
    #[inline]
    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        let head = Head::of(key);
        let mask = self.slots.len().wrapping_sub(1);
        let mut at = head.slot(self.seed, self.shift);
        // Bounded by the table's length: at most half of it is full.
        for _ in 0..self.slots.len() {
            let position = (*self.slots.get(at)? as usize).checked_sub(1)?;
            let (name, value) = self.heads.get(position)?;
            if *name == head
                && (head.len <= Head::WHOLE
                    || self
                        .long_names
                        .get(position)
                        .is_some_and(|long| long.as_deref() == Some(key)))
            {
                return Some(value);
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// How many names the index holds.
    pub(crate) fn len(&self) -> usize {
        self.heads.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{Head, NameIndex};
    use proptest::prelude::*;

    proptest! {
        /// Every listed name finds its own value and nothing else does, over names drawn so that shared heads
        /// and tails, lengths around 4, 8 and 16 bytes, NULs and non-ASCII are common.
        #[test]
        fn finds_exactly_the_listed_names(
            names in prop::collection::btree_set("[ab\\x00é]{0,20}", 0..60),
            probes in prop::collection::vec("[ab\\x00é]{0,20}", 0..40),
        ) {
            let names: Vec<String> = names.into_iter().collect();
            let index = NameIndex::new(names.iter().enumerate().map(|(position, name)| (name.as_str(), position)));
            // Too few names get no index; enough get one unless their heads crowd the table (see
            // `names_of_one_head_get_no_index`), which names this varied do not.
            prop_assert_eq!(index.is_some(), names.len() >= NameIndex::<usize>::MIN_NAMES);
            let Some(index) = index else { return Ok(()) };
            prop_assert_eq!(index.len(), names.len());
            for (position, name) in names.iter().enumerate() {
                prop_assert_eq!(index.get(name), Some(&position));
            }
            for probe in &probes {
                prop_assert_eq!(index.get(probe).copied(), names.iter().position(|name| name == probe));
            }
        }

        /// Names that share their first and last eight bytes (one head, so one probe sequence) get no index,
        /// rather than a quadratic build and lookups that scan.
        #[test]
        fn names_of_one_head_get_no_index(n in 40..200_usize) {
            let names: Vec<String> = (0..n).map(|idx| format!("aaaaaaaa{idx:05}bbbbbbbb")).collect();
            prop_assert!(NameIndex::new(names.iter().map(|name| (name.as_str(), ()))).is_none());
        }

        /// Equal heads mean equal names up to 16 bytes.
        #[test]
        fn heads_decide_short_names(a in "[ab\\x00é]{0,16}", b in "[ab\\x00é]{0,16}") {
            if a.len() <= 16 && b.len() <= 16 {
                prop_assert_eq!(Head::of(&a) == Head::of(&b), a == b);
            }
        }
    }
}
