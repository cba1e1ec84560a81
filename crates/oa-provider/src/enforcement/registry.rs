//! The capability registry: which (provider, model, endpoint) routes were last seen enforcing a schema, when, and
//! by which probe. Probes write it; the request path reads it. Missing information is read pessimistically: an
//! absent entry, or one older than the staleness window, counts as not enforced, so an unverified route degrades
//! visibly to the prompt path instead of failing silently.
//!
//! The registry is fed only by probes. It never reads the `schema_not_honored` diagnostic (0126): a diagnostic is a
//! hint about one attempt, a probe is an experiment about the route.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::enforcement::KeywordSet;

/// The default staleness window: an entry older than this counts as absent.
pub const DEFAULT_STALE_AFTER: Duration = Duration::from_secs(6 * 60 * 60);

/// A route: the provider name, the bound model and the endpoint (base URL, gateway included) calls go to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CapabilityKey {
    /// The provider's identifier, e.g. `"openai"`.
    pub provider: String,
    /// The bound model.
    pub model: String,
    /// The base URL the calls go to; a gateway in front makes a different route. Never holds a query (the
    /// provider refuses base URLs with one), so no secret lands in the registry file.
    pub endpoint: String,
}

impl CapabilityKey {
    /// A key from its three parts.
    pub fn new(provider: impl Into<String>, model: impl Into<String>, endpoint: impl Into<String>) -> Self {
        Self {
            provider: provider.into(),
            model: model.into(),
            endpoint: endpoint.into(),
        }
    }
}

/// Which experiment produced an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    /// The single-member-enum canary.
    Canary,
    /// Per-keyword probes derived from the caller's production schema.
    ProductionSchema,
}

/// What a probe established about a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capability {
    /// Whether the route enforced the schema.
    pub enforces: bool,
    /// When the probe ran.
    #[serde(with = "unix_millis")]
    pub checked_at: SystemTime,
    /// Which probe ran.
    pub probe: ProbeKind,
    /// The probed keywords the verdict speaks for (a per-keyword run: the keywords it probed). A canary verdict
    /// covers the canary's keywords whatever this holds ([`covered`](Self::covered)); an entry written before this
    /// field existed reads as empty.
    #[serde(default, skip_serializing_if = "KeywordSet::is_empty")]
    pub keywords: KeywordSet,
}

impl Capability {
    /// The keywords this verdict covers: its own, and for a canary the canary's.
    ///
    /// ```
    /// use std::time::SystemTime;
    /// use oa_provider::enforcement::{Capability, KeywordSet, ProbeKind};
    ///
    /// let canary = Capability { enforces: true, checked_at: SystemTime::now(), probe: ProbeKind::Canary,
    ///                           keywords: KeywordSet::EMPTY };
    /// assert!(canary.covered().contains("enum") && !canary.covered().contains("maxLength"));
    /// ```
    pub fn covered(&self) -> KeywordSet {
        match self.probe {
            ProbeKind::Canary => self.keywords.union(KeywordSet::canary()),
            ProbeKind::ProductionSchema => self.keywords,
        }
    }
}

/// Why a registry file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The file could not be read or written.
    #[error("capability registry file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// A shared store could not be reached, or answered something that is not a verdict. Never names a password.
    #[error("capability registry store: {0}")]
    Store(String),
    /// The file is not a registry this version understands.
    #[error("capability registry file {path} is malformed: {reason}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What was wrong with it.
        reason: String,
    },
}

/// The capability registry, shared by reference (wrap it in an `Arc`); every method takes `&self`.
///
/// Concurrency: reads take a shared lock, writes an exclusive one, so concurrent calls and probes never see a
/// torn entry. With persistence on, each write rewrites the file (to a temporary sibling, then renamed over it)
/// while holding a file lock of its own, so concurrent writers leave a complete file behind. File writes are
/// synchronous and small; one happens per probe, never per call.
pub struct CapabilityRegistry {
    entries: RwLock<HashMap<CapabilityKey, Capability>>,
    stale_after: Duration,
    file: Option<PathBuf>,
    // Serialises file writes; held only while writing, never while reading entries.
    file_lock: Mutex<()>,
    /// A store shared by many processes (Redis), read on the request path and written by probes.
    store: Option<Arc<dyn RegistryStore>>,
    /// How long a read of the store may take before the route counts as unverified.
    read_timeout: Duration,
    /// Set once an unreachable store has been reported, so the log says it once, not per call.
    store_down_reported: AtomicBool,
    /// Why the store could not be read the first time it could not (what [`store_unreachable`] reports).
    ///
    /// [`store_unreachable`]: Self::store_unreachable
    store_down: Mutex<Option<String>>,
}

/// Where verdicts are shared beyond one process: probes write them with the staleness window as their expiry,
/// the request path reads them. The JSON file and the in-memory map are the registry's own; a store is the
/// fleet's.
#[async_trait]
pub trait RegistryStore: Send + Sync + fmt::Debug {
    /// The verdict held for `key`, if any (an expired one is absent).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] when the store cannot be reached or answers something that is not a verdict.
    async fn read(&self, key: &CapabilityKey) -> Result<Option<Capability>, RegistryError>;

    /// Writes `capability` for `key`, expiring after `ttl`; the last complete write wins, never a torn record.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] when the store cannot be reached.
    async fn write(
        &self,
        key: &CapabilityKey,
        capability: &Capability,
        ttl: Duration,
    ) -> Result<(), RegistryError>;

    /// Where the store is, for messages: never a password (default: "the registry store").
    fn location(&self) -> String {
        "the registry store".to_owned()
    }

    /// Whether the store answers now (a command that writes before it probes checks this first, so an unreachable
    /// store costs no probe). The default reads a key no route has.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] naming the store and why it cannot be reached.
    async fn check(&self) -> Result<(), RegistryError> {
        self.read(&CapabilityKey::new("", "", "")).await.map(|_| ())
    }
}

/// The default bound on a store read on the request path.
pub const DEFAULT_STORE_READ_TIMEOUT: Duration = Duration::from_millis(250);

impl Default for CapabilityRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for CapabilityRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n_entries = self.entries.read().map(|entries| entries.len()).unwrap_or(0);
        f.debug_struct("CapabilityRegistry")
            .field("n_entries", &n_entries)
            .field("stale_after", &self.stale_after)
            .field("file", &self.file)
            .field("store", &self.store)
            .finish()
    }
}

impl CapabilityRegistry {
    /// An empty in-memory registry with the default staleness window (6 hours).
    pub fn new() -> Self {
        Self {
            entries: RwLock::new(HashMap::new()),
            stale_after: DEFAULT_STALE_AFTER,
            file: None,
            file_lock: Mutex::new(()),
            store: None,
            read_timeout: DEFAULT_STORE_READ_TIMEOUT,
            store_down_reported: AtomicBool::new(false),
            store_down: Mutex::new(None),
        }
    }

    /// An in-memory registry that reads and writes verdicts through `store`, shared by every process pointed at
    /// it. A store that cannot be read within the read timeout counts as holding nothing: the route is unverified,
    /// the call goes on, and a log record says so once.
    pub fn with_store(store: Arc<dyn RegistryStore>) -> Self {
        Self {
            store: Some(store),
            ..Self::new()
        }
    }

    /// Sets the bound on a store read (default [`DEFAULT_STORE_READ_TIMEOUT`]).
    pub fn with_read_timeout(mut self, read_timeout: Duration) -> Self {
        self.read_timeout = read_timeout;
        self
    }

    /// A registry persisted to `path`: loaded from it when the file exists, rewritten after every record.
    ///
    /// # Errors
    ///
    /// [`RegistryError`] when the file exists but cannot be read or is not a registry.
    pub fn with_file(path: impl Into<PathBuf>) -> Result<Self, RegistryError> {
        let path = path.into();
        let entries = if path.exists() {
            load(&path)?
        } else {
            HashMap::new()
        };
        Ok(Self {
            entries: RwLock::new(entries),
            file: Some(path),
            ..Self::new()
        })
    }

    /// Sets the staleness window (default [`DEFAULT_STALE_AFTER`], 6 hours).
    pub fn with_stale_after(mut self, stale_after: Duration) -> Self {
        self.stale_after = stale_after;
        self
    }

    /// The staleness window.
    pub fn stale_after(&self) -> Duration {
        self.stale_after
    }

    /// Records what a probe found, replacing any older entry for `key` (a newer `checked_at` wins; an entry older
    /// than the one held is ignored, so a slow probe cannot overwrite a fresh result).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Io`] when persistence is on and the file cannot be written; the in-memory entry is
    /// recorded regardless.
    pub fn record(&self, key: CapabilityKey, capability: Capability) -> Result<(), RegistryError> {
        {
            let mut entries = self.entries.write().unwrap_or_else(|poison| poison.into_inner());
            let newer = entries
                .get(&key)
                .is_none_or(|held| held.checked_at <= capability.checked_at);
            if newer {
                entries.insert(key, capability);
            }
        }
        self.save()
    }

    /// The entry for `key`, fresh or stale.
    pub fn get(&self, key: &CapabilityKey) -> Option<Capability> {
        let entries = self.entries.read().unwrap_or_else(|poison| poison.into_inner());
        entries.get(key).copied()
    }

    /// Whether `key` counts as enforcing now.
    pub fn is_enforced(&self, key: &CapabilityKey) -> bool {
        self.is_enforced_at(key, SystemTime::now())
    }

    /// Whether `key` counts as enforcing at `now`: an entry exists, says it enforces, and is no older than the
    /// staleness window. Absent or stale is not enforced.
    pub fn is_enforced_at(&self, key: &CapabilityKey, now: SystemTime) -> bool {
        self.get(key).is_some_and(|capability| {
            let age = now
                .duration_since(capability.checked_at)
                .unwrap_or(Duration::ZERO);
            capability.enforces && age <= self.stale_after
        })
    }

    /// The verdict for `key` now, from the store when there is one (bounded by the read timeout; unreachable
    /// reads as absent, reported once), else from this process's entries.
    pub async fn verdict(&self, key: &CapabilityKey) -> Option<Capability> {
        let Some(store) = &self.store else {
            return self.get(key);
        };
        let read = tokio::time::timeout(self.read_timeout, store.read(key)).await;
        match read {
            Ok(Ok(capability)) => capability,
            Ok(Err(error)) => {
                match &error {
                    RegistryError::Store(why) => self.report_store_down(why),
                    other => self.report_store_down(&other.to_string()),
                }
                None
            }
            Err(_) => {
                self.report_store_down(&format!(
                    "{}: no answer within {:?}",
                    store.location(),
                    self.read_timeout
                ));
                None
            }
        }
    }

    /// Whether the store answers now, checked within the write timeout (always `Ok` without a store).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] naming the store and why it cannot be reached.
    pub async fn check_store(&self) -> Result<(), RegistryError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        tokio::time::timeout(self.read_timeout.max(Duration::from_secs(2)), store.check())
            .await
            .map_err(|_| RegistryError::Store(format!("{}: no answer within 2s", store.location())))?
    }

    /// Why the store could not be read, the first time a read failed (unreachable, or no answer within the read
    /// timeout), naming the store and never a password; `None` while every read succeeded. Reads that failed
    /// counted as "no verdict": the routes read as unverified.
    pub fn store_unreachable(&self) -> Option<String> {
        self.store_down
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }

    /// Whether `key` counts as enforcing now, reading the store when there is one: a verdict exists, says it
    /// enforces, and is no older than the staleness window.
    pub async fn is_enforced_now(&self, key: &CapabilityKey) -> bool {
        self.enforcing_now(key).await.is_some()
    }

    /// The verdict for `key` when it counts as enforcing now (as [`is_enforced_now`](Self::is_enforced_now)), so a
    /// caller can read which keywords it covers ([`Capability::covered`]).
    pub async fn enforcing_now(&self, key: &CapabilityKey) -> Option<Capability> {
        let now = SystemTime::now();
        self.verdict(key).await.filter(|capability| {
            let age = now
                .duration_since(capability.checked_at)
                .unwrap_or(Duration::ZERO);
            capability.enforces && age <= self.stale_after
        })
    }

    /// Records a probe's verdict here and, when there is a store, in the store with the staleness window as its
    /// expiry.
    ///
    /// # Errors
    ///
    /// As [`record`](Self::record), or [`RegistryError::Store`] when the store cannot be written.
    pub async fn record_verdict(
        &self,
        key: CapabilityKey,
        capability: Capability,
    ) -> Result<(), RegistryError> {
        self.record(key.clone(), capability)?;
        if let Some(store) = &self.store {
            let write = store.write(&key, &capability, self.stale_after);
            tokio::time::timeout(self.read_timeout.max(Duration::from_secs(2)), write)
                .await
                .map_err(|_| RegistryError::Store("the write timed out".to_owned()))??;
        }
        Ok(())
    }

    fn report_store_down(&self, why: &str) {
        if !self.store_down_reported.swap(true, Ordering::Relaxed) {
            *self
                .store_down
                .lock()
                .unwrap_or_else(|poison| poison.into_inner()) = Some(why.to_owned());
            tracing::warn!(
                target: "openarmature",
                "capability registry store unreachable ({why}): routes read as unverified until it answers"
            );
        }
    }

    /// Every entry, sorted by key.
    pub fn entries(&self) -> Vec<(CapabilityKey, Capability)> {
        let entries = self.entries.read().unwrap_or_else(|poison| poison.into_inner());
        let mut listed: Vec<_> = entries.iter().map(|(key, value)| (key.clone(), *value)).collect();
        listed.sort_by(|left, right| left.0.cmp(&right.0));
        listed
    }

    fn save(&self) -> Result<(), RegistryError> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let _writing = self.file_lock.lock().unwrap_or_else(|poison| poison.into_inner());
        let file = RegistryFile {
            version: FILE_VERSION,
            entries: self
                .entries()
                .into_iter()
                .map(|(key, capability)| FileEntry { key, capability })
                .collect(),
        };
        let text = serde_json::to_string_pretty(&file).map_err(|error| RegistryError::Malformed {
            path: path.clone(),
            reason: error.to_string(),
        })?;
        let temporary = temporary_sibling(path);
        let io = |source| RegistryError::Io {
            path: path.clone(),
            source,
        };
        std::fs::write(&temporary, text).map_err(io)?;
        std::fs::rename(&temporary, path).map_err(io)
    }
}

const FILE_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    version: u32,
    entries: Vec<FileEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    #[serde(flatten)]
    key: CapabilityKey,
    #[serde(flatten)]
    capability: Capability,
}

fn load(path: &Path) -> Result<HashMap<CapabilityKey, Capability>, RegistryError> {
    let text = std::fs::read_to_string(path).map_err(|source| RegistryError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let malformed = |reason: String| RegistryError::Malformed {
        path: path.to_path_buf(),
        reason,
    };
    let file: RegistryFile = serde_json::from_str(&text).map_err(|error| malformed(error.to_string()))?;
    if file.version != FILE_VERSION {
        return Err(malformed(format!(
            "version {} (expected {FILE_VERSION})",
            file.version
        )));
    }
    Ok(file
        .entries
        .into_iter()
        .map(|entry| (entry.key, entry.capability))
        .collect())
}

fn temporary_sibling(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|name| name.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp{}", std::process::id()));
    path.with_file_name(name)
}

/// `checked_at` as milliseconds since the Unix epoch in the file.
mod unix_millis {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(time: &SystemTime, serializer: S) -> Result<S::Ok, S::Error> {
        let millis = time
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_millis();
        serializer.serialize_u64(u64::try_from(millis).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SystemTime, D::Error> {
        let millis = u64::deserialize(deserializer)?;
        UNIX_EPOCH
            .checked_add(Duration::from_millis(millis))
            .ok_or_else(|| serde::de::Error::custom("checked_at out of range"))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::UNIX_EPOCH;

    use super::*;

    fn key() -> CapabilityKey {
        CapabilityKey::new("openai", "smollm2", "http://127.0.0.1:8080/v1")
    }

    fn capability(enforces: bool, checked_at: SystemTime) -> Capability {
        Capability {
            enforces,
            checked_at,
            probe: ProbeKind::Canary,
            keywords: KeywordSet::EMPTY,
        }
    }

    #[test]
    fn absent_and_stale_count_as_not_enforced() {
        let registry = CapabilityRegistry::new();
        let now = SystemTime::now();
        assert!(!registry.is_enforced_at(&key(), now), "absent");
        registry.record(key(), capability(true, now)).unwrap();
        assert!(registry.is_enforced_at(&key(), now));
        let almost = now + DEFAULT_STALE_AFTER;
        assert!(
            registry.is_enforced_at(&key(), almost),
            "exactly at the window is fresh"
        );
        let stale = almost + Duration::from_secs(1);
        assert!(!registry.is_enforced_at(&key(), stale), "stale");
        registry
            .record(key(), capability(false, now + Duration::from_secs(5)))
            .unwrap();
        assert!(
            !registry.is_enforced_at(&key(), now + Duration::from_secs(6)),
            "a fresh negative"
        );
    }

    #[test]
    fn the_window_is_configurable_and_keys_are_distinct() {
        let registry = CapabilityRegistry::new().with_stale_after(Duration::from_secs(60));
        let now = SystemTime::now();
        registry.record(key(), capability(true, now)).unwrap();
        assert!(!registry.is_enforced_at(&key(), now + Duration::from_secs(61)));
        let via_gateway = CapabilityKey::new("openai", "smollm2", "http://127.0.0.1:9999/v1");
        assert!(
            !registry.is_enforced_at(&via_gateway, now),
            "another endpoint is another route"
        );
    }

    #[test]
    fn an_older_probe_result_never_overwrites_a_newer_one() {
        let registry = CapabilityRegistry::new();
        let now = SystemTime::now();
        registry.record(key(), capability(false, now)).unwrap();
        registry
            .record(key(), capability(true, now - Duration::from_secs(10)))
            .unwrap();
        assert_eq!(registry.get(&key()).map(|held| held.enforces), Some(false));
    }

    #[test]
    fn persists_and_reloads_through_a_file() {
        let dir = std::env::temp_dir().join(format!(
            "oa-registry-{}-{:?}",
            std::process::id(),
            SystemTime::now()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("capabilities.json");
        let checked_at = UNIX_EPOCH + Duration::from_millis(1_796_000_000_123);
        {
            let registry = CapabilityRegistry::with_file(&path).unwrap();
            registry.record(key(), capability(true, checked_at)).unwrap();
        }
        let reloaded = CapabilityRegistry::with_file(&path).unwrap();
        assert_eq!(reloaded.get(&key()), Some(capability(true, checked_at)));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"checked_at\": 1796000000123"), "{text}");
        assert!(text.contains("\"probe\": \"canary\""), "{text}");
        std::fs::write(&path, "{\"version\": 2, \"entries\": []}").unwrap();
        let error = CapabilityRegistry::with_file(&path).unwrap_err();
        assert!(error.to_string().contains("malformed"), "{error}");
        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(
            CapabilityRegistry::with_file(&path),
            Err(RegistryError::Malformed { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn concurrent_writers_and_readers_leave_a_consistent_registry() {
        let registry = Arc::new(CapabilityRegistry::new());
        let now = SystemTime::now();
        let threads: Vec<_> = (0..8)
            .map(|thread_idx| {
                let registry = Arc::clone(&registry);
                std::thread::spawn(move || {
                    for round in 0..200u64 {
                        let route = CapabilityKey::new("openai", format!("m{thread_idx}"), "e");
                        let at = now + Duration::from_millis(round);
                        registry
                            .record(route.clone(), capability(round % 2 == 0, at))
                            .unwrap();
                        assert!(registry.get(&route).is_some());
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let entries = registry.entries();
        assert_eq!(entries.len(), 8);
        // The last round (199) is odd, so every route ends not enforcing, stamped at its newest time.
        for (_, capability) in entries {
            assert!(!capability.enforces);
            assert_eq!(capability.checked_at, now + Duration::from_millis(199));
        }
    }
}
