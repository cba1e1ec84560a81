//! Compiled response schemas shared by every call in the process: a schema is checked, compiled and given its
//! schema_version once per distinct schema, then reused, so a call with a schema seen before pays neither the
//! compilation nor the canonical serialisation and SHA-256 of its version.
//!
//! Entries are keyed by schema_version. A call finds its entry through a structural hash of the schema it holds,
//! confirmed by equality with the entry's schema (so a hash collision only costs a miss); on a miss the schema's
//! canonical text and its version are computed and the version looked up, so the same schema written with its keys in another order still reuses the entry. The
//! cache holds at most [`MAX_SCHEMAS`] schemas and starts afresh when full, so memory stays bounded however many
//! distinct schemas a process sends.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde_json::Value;

/// Distinct schemas kept at once.
pub(crate) const MAX_SCHEMAS: usize = 256;

#[derive(Debug, Default)]
struct Cache<T> {
    by_version: HashMap<String, Arc<T>>,
    /// Structural hash → versions of the entries with that hash.
    by_hash: HashMap<u64, Vec<String>>,
}

/// A bounded map from schema_version to a value built from the schema (the compiled schema).
#[derive(Debug)]
pub(crate) struct SchemaCache<T> {
    cache: LazyLock<Mutex<Cache<T>>>,
}

/// What the cache needs of an entry: the schema it was built from.
pub(crate) trait Entry {
    fn schema(&self) -> &Value;
}

/// What a schema is known by, computed once per distinct schema and handed to the entry's build.
#[derive(Debug)]
pub(crate) struct Identity {
    /// The schema's canonical JSON text (`crate::canonical::to_string`).
    pub(crate) canonical: String,
    /// Its schema_version: the SHA-256 of `canonical`.
    pub(crate) version: String,
}

impl Identity {
    fn of(schema: &Value) -> Self {
        let canonical = crate::canonical::to_string(schema);
        let version = crate::enforcement::version_of_canonical(&canonical);
        Self { canonical, version }
    }
}

impl<T: Entry> SchemaCache<T> {
    pub(crate) const fn new() -> Self {
        Self {
            cache: LazyLock::new(|| {
                Mutex::new(Cache {
                    by_version: HashMap::new(),
                    by_hash: HashMap::new(),
                })
            }),
        }
    }

    /// The entry for `schema`, built by `build(identity)` on the first call with this schema_version. A build
    /// error is returned and nothing is cached.
    pub(crate) fn get_or_build<E>(
        &self,
        schema: &Value,
        build: impl FnOnce(Identity) -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let hash = structural_hash(schema);
        {
            let cache = self.lock();
            let found = cache
                .by_hash
                .get(&hash)
                .into_iter()
                .flatten()
                .find_map(|version| {
                    cache
                        .by_version
                        .get(version)
                        .filter(|entry| entry.schema() == schema)
                });
            if let Some(entry) = found {
                return Ok(Arc::clone(entry));
            }
        }
        let identity = Identity::of(schema);
        let version = identity.version.clone();
        {
            let mut cache = self.lock();
            if let Some(entry) = cache.by_version.get(&version).cloned() {
                // The same schema in another key order: found by its version, and by this hash from now on.
                cache.by_hash.entry(hash).or_default().push(version);
                return Ok(entry);
            }
        }
        // Built outside the lock: other calls go on while a large schema compiles.
        let entry = Arc::new(build(identity)?);
        let mut cache = self.lock();
        if cache.by_version.len() >= MAX_SCHEMAS {
            cache.by_version.clear();
            cache.by_hash.clear();
        }
        cache.by_hash.entry(hash).or_default().push(version.clone());
        let entry = Arc::clone(cache.by_version.entry(version).or_insert(entry));
        Ok(entry)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache<T>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A hash of the value's structure and content, in its own key order (iterative: no recursion on deep values).
/// foldhash, not SipHash: it runs on every structured call over the whole schema, and a collision (even a crafted
/// one) only costs a miss, which the version lookup then answers.
fn structural_hash(value: &Value) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0x6f61_7363_6865_6d61).build_hasher();
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Null => 0u8.hash(&mut hasher),
            Value::Bool(flag) => (1u8, *flag).hash(&mut hasher),
            Value::Number(number) => {
                2u8.hash(&mut hasher);
                number.as_f64().map(f64::to_bits).hash(&mut hasher);
            }
            Value::String(text) => (3u8, text).hash(&mut hasher),
            Value::Array(items) => {
                (4u8, items.len()).hash(&mut hasher);
                pending.extend(items.iter().rev());
            }
            Value::Object(map) => {
                (5u8, map.len()).hash(&mut hasher);
                for (key, member) in map {
                    key.hash(&mut hasher);
                    pending.push(member);
                }
            }
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug)]
    struct Built(Value);

    impl Entry for Built {
        fn schema(&self) -> &Value {
            &self.0
        }
    }

    fn get(cache: &SchemaCache<Built>, schema: &Value, builds: &mut usize) -> Arc<Built> {
        cache
            .get_or_build(schema, |_| {
                *builds += 1;
                Ok::<_, ()>(Built(schema.clone()))
            })
            .unwrap()
    }

    #[test]
    fn a_schema_is_built_once_and_found_again_whatever_its_key_order() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        let first = get(&cache, &json!({"type": "object", "required": ["a"]}), &mut builds);
        let again = get(&cache, &json!({"type": "object", "required": ["a"]}), &mut builds);
        let reordered = get(&cache, &json!({"required": ["a"], "type": "object"}), &mut builds);
        assert!(Arc::ptr_eq(&first, &again) && Arc::ptr_eq(&first, &reordered));
        let other = get(&cache, &json!({"type": "object", "required": ["b"]}), &mut builds);
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(builds, 2);
    }

    #[test]
    fn a_failed_build_is_not_cached() {
        let cache: SchemaCache<Built> = SchemaCache::new();
        let mut attempts = 0;
        for _ in 0..2 {
            let result = cache.get_or_build(&json!({"type": 1}), |_| {
                attempts += 1;
                Err("invalid")
            });
            assert_eq!(result.unwrap_err(), "invalid");
        }
        assert_eq!(attempts, 2);
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = SchemaCache::new();
        let mut builds = 0;
        for n in 0..=MAX_SCHEMAS {
            get(&cache, &json!({"const": n}), &mut builds);
        }
        assert_eq!(builds, MAX_SCHEMAS + 1);
        let cache_now = cache.lock();
        assert!(cache_now.by_version.len() <= MAX_SCHEMAS);
        assert!(cache_now.by_hash.values().map(Vec::len).sum::<usize>() <= MAX_SCHEMAS);
    }
}
