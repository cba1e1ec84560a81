//! JSON Schema's type names (`type`'s vocabulary) and sets of them, as one byte: what the `type` keyword holds, what
//! a `type` violation expected, and how a union's members are told apart by the instances they may admit.

use serde_json::Value;

/// A JSON Schema type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    String,
    Integer,
}

impl JsonType {
    /// Every type, in the order type sets are rendered.
    pub(crate) const ALL: [Self; 7] = [
        Self::Array,
        Self::Boolean,
        Self::Integer,
        Self::Null,
        Self::Number,
        Self::Object,
        Self::String,
    ];

    /// The type's name as JSON Schema spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Boolean => "boolean",
            Self::Object => "object",
            Self::Array => "array",
            Self::Number => "number",
            Self::String => "string",
            Self::Integer => "integer",
        }
    }

    /// Parses a type name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|ty| ty.name() == name)
    }

    /// The primitive type of an instance (`integer` for numbers that are integers by value).
    pub(crate) fn of(instance: &Value) -> Self {
        match instance {
            Value::Null => Self::Null,
            Value::Bool(_) => Self::Boolean,
            Value::Object(_) => Self::Object,
            Value::Array(_) => Self::Array,
            Value::String(_) => Self::String,
            Value::Number(number) => {
                if is_integer(number) {
                    Self::Integer
                } else {
                    Self::Number
                }
            }
        }
    }
}

/// A set of types, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TypeSet(u8);

impl TypeSet {
    /// Adds a type.
    pub(crate) fn insert(&mut self, ty: JsonType) {
        self.0 |= 1 << ty as u8;
    }

    /// Whether the set admits an instance: `number` admits integers too. Inlined into every evaluator loop; the
    /// integer test stays out of line.
    #[inline]
    pub(crate) fn admits(self, instance: &Value) -> bool {
        let ty = match instance {
            // `number` admits every number, so the (costlier) integer test runs only for `integer` alone.
            Value::Number(number) => {
                return self.contains(JsonType::Number)
                    || (self.contains(JsonType::Integer) && is_integer(number));
            }
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        };
        self.contains(ty)
    }

    /// Whether the set names `ty`.
    #[inline]
    pub(crate) fn contains(self, ty: JsonType) -> bool {
        self.0 & (1 << ty as u8) != 0
    }

    /// Merges another set in.
    pub(crate) fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The types both sets admit: `number` admits integers, so `integer` on one side and `number` on the other
    /// meet in `integer`.
    pub(crate) fn meet(self, other: Self) -> Self {
        let mut both = Self(self.0 & other.0);
        let number_meets_integer =
            |a: Self, b: Self| a.contains(JsonType::Number) && b.contains(JsonType::Integer);
        if number_meets_integer(self, other) || number_meets_integer(other, self) {
            both.insert(JsonType::Integer);
        }
        both
    }

    /// The type names in a stable order, joined with " or ".
    #[cfg(test)]
    pub(crate) fn describe(self) -> String {
        let mut text = String::with_capacity(24);
        for name in JsonType::ALL
            .into_iter()
            .filter(|ty| self.contains(*ty))
            .map(JsonType::name)
        {
            if !text.is_empty() {
                text.push_str(" or ");
            }
            text.push_str(name);
        }
        text
    }

    /// The type names in a stable order, from a table (a report keeps them without allocating).
    pub(crate) fn static_names(self) -> &'static [&'static str] {
        let (names, len) = &TYPE_NAME_SETS[usize::from(self.0 & 0x7f)];
        names.get(..*len).unwrap_or_default()
    }

    /// Appends the type names in a stable order, joined with " or " (as `describe`).
    pub(crate) fn push_description(self, out: &mut String) {
        for (name_idx, name) in self.static_names().iter().enumerate() {
            if name_idx > 0 {
                out.push_str(" or ");
            }
            out.push_str(name);
        }
    }

    /// The type names in a stable order.
    #[cfg(test)]
    pub(crate) fn names(self) -> Vec<&'static str> {
        JsonType::ALL
            .into_iter()
            .filter(|ty| self.contains(*ty))
            .map(JsonType::name)
            .collect()
    }
}

/// For every set of types (by its bits), its names in [`JsonType::ALL`] order and how many there are.
static TYPE_NAME_SETS: [([&str; 7], usize); 128] = {
    let mut table = [([""; 7], 0); 128];
    let mut bits = 0;
    while bits < 128 {
        let mut n_names = 0;
        let mut ty_idx = 0;
        while ty_idx < JsonType::ALL.len() {
            let ty = JsonType::ALL[ty_idx];
            if bits & (1 << ty as u8) != 0 {
                table[bits].0[n_names] = match ty {
                    JsonType::Null => "null",
                    JsonType::Boolean => "boolean",
                    JsonType::Object => "object",
                    JsonType::Array => "array",
                    JsonType::Number => "number",
                    JsonType::String => "string",
                    JsonType::Integer => "integer",
                };
                n_names += 1;
            }
            ty_idx += 1;
        }
        table[bits].1 = n_names;
        bits += 1;
    }
    table
};

/// Whether a number is an integer by value, answering the common cases (digits that fit `i64`/`u64`) without the
/// exact decimal path.
#[inline(never)]
pub(crate) fn is_integer(number: &serde_json::Number) -> bool {
    crate::number::as_short_i64(number).is_some() || crate::number::is_integer(number)
}

#[cfg(test)]
mod tests {
    use super::{JsonType, TypeSet};

    #[test]
    fn meet_admits_what_both_sets_admit() {
        use serde_json::json;
        let set = |types: &[JsonType]| {
            let mut set = TypeSet::default();
            for ty in types {
                set.insert(*ty);
            }
            set
        };
        let instances = [
            json!(null),
            json!(true),
            json!(1),
            json!(1.5),
            json!("a"),
            json!([]),
            json!({}),
        ];
        for a in 0..128u8 {
            for b in [0u8, 1, 0b10_0000, 0b1_0100, 0b100, 0b1_0000, 127, 0b110_0000] {
                let (a, b) = (TypeSet(a), TypeSet(b));
                for instance in &instances {
                    assert_eq!(
                        a.meet(b).admits(instance),
                        a.admits(instance) && b.admits(instance),
                        "{a:?} {b:?} {instance}"
                    );
                }
            }
        }
        let integer = set(&[JsonType::Integer]);
        assert_eq!(set(&[JsonType::Number, JsonType::String]).meet(integer), integer);
    }

    #[test]
    fn static_names_and_description_match_the_allocating_forms() {
        for bits in 0..128u8 {
            let types = TypeSet(bits);
            assert_eq!(types.static_names(), types.names().as_slice(), "{bits:#b}");
            let mut description = String::new();
            types.push_description(&mut description);
            assert_eq!(description, types.describe(), "{bits:#b}");
        }
    }
}
