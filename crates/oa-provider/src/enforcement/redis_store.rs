//! The capability registry shared through Redis (feature `redis`): one key per route, the verdict as JSON, the
//! staleness window as the key's expiry, so an instance started after a probe ran elsewhere reads it, and a route
//! no probe refreshes expires into "unverified" on its own.

use std::fmt;

use async_trait::async_trait;
use redis::AsyncCommands;
use tokio::sync::Mutex;

use crate::enforcement::registry::{Capability, CapabilityKey, RegistryError, RegistryStore};

/// A [`RegistryStore`] on a Redis server, e.g. `redis://127.0.0.1:6379/0`.
///
/// The URL may carry a password; it is never printed (Debug shows the host and database only) and no error names
/// it. Connections are made on first use and re-made after a failure.
pub struct RedisStore {
    client: redis::Client,
    /// `redis://host:port/db`, what Debug and errors may name (never the password).
    display: String,
    connection: Mutex<Option<redis::aio::MultiplexedConnection>>,
}

impl RedisStore {
    /// A store for the Redis server at `url` (`redis://` or `rediss://`); nothing is connected yet.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Store`] for a URL the Redis client cannot read.
    pub fn open(url: &str) -> Result<Self, RegistryError> {
        let client = redis::Client::open(url)
            .map_err(|_| RegistryError::Store("not a redis:// URL the client can read".to_owned()))?;
        let info = client.get_connection_info();
        let scheme = if url.starts_with("rediss://") {
            "rediss"
        } else {
            "redis"
        };
        let display = format!("{scheme}://{}/{}", info.addr(), info.redis_settings().db());
        Ok(Self {
            client,
            display,
            connection: Mutex::new(None),
        })
    }

    /// The key a route's verdict is stored under: a fixed prefix and the route as JSON (unambiguous whatever the
    /// model name or base URL hold).
    pub fn key_for(key: &CapabilityKey) -> String {
        let route = serde_json::json!([key.provider, key.model, key.endpoint]);
        format!("oa:capability:{route}")
    }

    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, RegistryError> {
        let mut held = self.connection.lock().await;
        if let Some(connection) = held.as_ref() {
            return Ok(connection.clone());
        }
        let connection = self
            .client
            .get_multiplexed_async_connection()
            .await
            .map_err(|error| self.failed(&error))?;
        *held = Some(connection.clone());
        Ok(connection)
    }

    /// An error naming the server and the cause, never the URL as given (which may hold a password).
    fn failed(&self, error: &redis::RedisError) -> RegistryError {
        RegistryError::Store(format!("{}: {}", self.display, cause(error)))
    }

    async fn forget_connection(&self) {
        *self.connection.lock().await = None;
    }
}

/// Why a Redis command failed, in words: the socket's own error for an I/O failure (connection refused, name not
/// resolved, reset), else the client's fixed category (`authentication failed`, `read-only`); never the server's
/// free text, which could echo what it was sent.
fn cause(error: &redis::RedisError) -> String {
    if error.is_connection_refusal() {
        return "connection refused (is a Redis server listening there?)".to_owned();
    }
    if error.is_timeout() {
        return "timed out".to_owned();
    }
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        if let Some(io) = inner.downcast_ref::<std::io::Error>() {
            return io.to_string();
        }
        source = inner.source();
    }
    error.category().to_owned()
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("server", &self.display)
            .finish()
    }
}

#[async_trait]
impl RegistryStore for RedisStore {
    fn location(&self) -> String {
        self.display.clone()
    }

    async fn check(&self) -> Result<(), RegistryError> {
        let mut connection = self.connection().await?;
        let pong: Result<String, redis::RedisError> = redis::cmd("PING").query_async(&mut connection).await;
        if let Err(error) = pong {
            self.forget_connection().await;
            return Err(self.failed(&error));
        }
        Ok(())
    }

    async fn read(&self, key: &CapabilityKey) -> Result<Option<Capability>, RegistryError> {
        let mut connection = self.connection().await?;
        let text: Option<String> = match connection.get(Self::key_for(key)).await {
            Ok(text) => text,
            Err(error) => {
                self.forget_connection().await;
                return Err(self.failed(&error));
            }
        };
        text.map(|text| {
            serde_json::from_str(&text).map_err(|_| {
                RegistryError::Store(format!(
                    "redis at {}: a value that is not a verdict",
                    self.display
                ))
            })
        })
        .transpose()
    }

    async fn write(
        &self,
        key: &CapabilityKey,
        capability: &Capability,
        ttl: std::time::Duration,
    ) -> Result<(), RegistryError> {
        let text = serde_json::to_string(capability)
            .map_err(|error| RegistryError::Store(format!("a verdict that does not serialise: {error}")))?;
        let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        let mut connection = self.connection().await?;
        let written: Result<(), redis::RedisError> =
            connection.pset_ex(Self::key_for(key), text, millis).await;
        if let Err(error) = written {
            self.forget_connection().await;
            return Err(self.failed(&error));
        }
        Ok(())
    }
}
