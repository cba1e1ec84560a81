//! The capability registry shared through a real `redis-server` on 127.0.0.1 (oa-testkit starts it; `.ci/run`
//! installs it): a verdict one registry writes is read by another (another instance), expires with the staleness
//! window, reads as unverified when Redis is down without failing or blocking the call, and many writers and readers
//! at once never see a torn record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "redis")]
mod support;

/// Built without the feature, these tests cannot run: said loudly, and a failure under `CI=true` (the workspace
/// build turns the feature on through oa-cli).
#[cfg(not(feature = "redis"))]
#[test]
fn the_redis_tests_need_the_redis_feature() {
    let message = "oa-provider was built without feature `redis`: the shared-registry tests did NOT run";
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
    eprintln!("\n!!!!! SKIPPED: {message}\n");
}

#[cfg(feature = "redis")]
mod shared {
    use std::sync::Arc;
    use std::time::Duration;

    use oa_provider::enforcement::{Capability, RedisStore, RegistryStore};
    use oa_provider::enforcement::{CapabilityKey, CapabilityRegistry};
    use oa_provider::{CompletionRequest, Message, Provider, SchemaMode};
    use oa_testkit::openai::text_reply;
    use oa_testkit::{RedisServer, Server};
    use serde_json::json;

    fn registry(url: &str, stale_after: Duration) -> Arc<CapabilityRegistry> {
        let store = RedisStore::open(url).unwrap();
        Arc::new(CapabilityRegistry::with_store(Arc::new(store)).with_stale_after(stale_after))
    }

    fn verdict(enforces: bool) -> Capability {
        crate::support::fresh_canary(enforces)
    }

    fn ask() -> CompletionRequest {
        CompletionRequest::new(vec![Message::user("value?")]).with_response_schema(
            json!({"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"],
               "additionalProperties": false}),
        )
    }

    #[tokio::test]
    async fn a_verdict_written_by_one_instance_is_read_by_another_and_expires() {
        let Some(redis) = RedisServer::start("redis::a_verdict_written_by_one_instance") else {
            return;
        };
        let key = CapabilityKey::new("openai", "m", "http://127.0.0.1:1/v1");
        let writer = registry(&redis.url(), Duration::from_millis(800));
        let reader = registry(&redis.url(), Duration::from_millis(800));
        assert!(!reader.is_enforced_now(&key).await, "nothing recorded yet");
        writer.record_verdict(key.clone(), verdict(true)).await.unwrap();
        assert!(reader.is_enforced_now(&key).await, "another instance reads it");
        assert!(
            reader.get(&key).is_none(),
            "from the store, not from its own memory"
        );
        // The key's expiry is the staleness window.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        assert_eq!(reader.verdict(&key).await, None);
        assert!(!reader.is_enforced_now(&key).await);
    }

    #[tokio::test]
    async fn the_marker_follows_the_shared_verdict_and_a_stopped_redis_reads_as_unverified() {
        let Some(mut redis) = RedisServer::start("redis::the_marker_follows_the_shared_verdict") else {
            return;
        };
        let server = Server::start(vec![
            text_reply(r#"{"v": 1}"#, "stop"),
            text_reply(r#"{"v": 2}"#, "stop"),
            text_reply(r#"{"v": 3}"#, "stop"),
        ])
        .unwrap();
        let shared = registry(&redis.url(), Duration::from_secs(60));
        let provider = crate::support::openai_builder(&server, "test-model")
            .registry(Arc::clone(&shared))
            .build()
            .unwrap();
        let response = provider.complete(&ask()).await.unwrap();
        assert_eq!(response.schema_mode, Some(SchemaMode::Unverified));
        // A probe elsewhere records the route; this process reads it on the next call.
        let elsewhere = registry(&redis.url(), Duration::from_secs(60));
        elsewhere
            .record_verdict(provider.capability_key().unwrap(), verdict(true))
            .await
            .unwrap();
        let response = provider.complete(&ask()).await.unwrap();
        assert_eq!(response.schema_mode, Some(SchemaMode::Enforced));
        // Redis gone: the route reads as unverified, and the call still succeeds, promptly.
        redis.stop();
        let started = std::time::Instant::now();
        let response = provider.complete(&ask()).await.unwrap();
        assert_eq!(response.schema_mode, Some(SchemaMode::Unverified));
        assert_eq!(response.parsed, Some(json!({"v": 3})));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writers_and_readers_see_whole_verdicts() {
        let Some(redis) = RedisServer::start("redis::concurrent_writers_and_readers") else {
            return;
        };
        let key = CapabilityKey::new("openai", "m", "http://gateway.example/v1");
        let url = redis.url();
        let mut tasks = Vec::new();
        for task_idx in 0..8 {
            let url = url.clone();
            let key = key.clone();
            tasks.push(tokio::spawn(async move {
                let store = RedisStore::open(&url).unwrap();
                for round in 0..50 {
                    let enforces = (task_idx + round) % 2 == 0;
                    store
                        .write(&key, &verdict(enforces), Duration::from_secs(60))
                        .await
                        .unwrap();
                    // Every read is a whole verdict (it parses), never a torn one.
                    let read = store.read(&key).await.unwrap();
                    assert!(read.is_some());
                }
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert!(
            RedisStore::open(&url)
                .unwrap()
                .read(&key)
                .await
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn a_password_in_the_url_is_never_printed() {
        let store = RedisStore::open("redis://:hunter2-secret@127.0.0.1:1/3").unwrap();
        let debug = format!("{store:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("127.0.0.1:1/3"), "{debug}");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let key = CapabilityKey::new("openai", "m", "e");
        let error = runtime.block_on(store.read(&key)).unwrap_err();
        assert!(!error.to_string().contains("hunter2"), "{error}");
        assert!(!format!("{error:?}").contains("hunter2"), "{error:?}");
    }

    /// A store nothing listens at: read as no verdict (unverified), and the registry says once why, naming the
    /// server and the cause (never the password); a check before probing fails the same way.
    #[test]
    fn an_unreachable_store_is_named_with_its_cause() {
        let closed = oa_testkit::closed_base_url().unwrap();
        let port = closed
            .trim_end_matches("/v1")
            .rsplit(':')
            .next()
            .unwrap()
            .to_owned();
        let url = format!("redis://:hunter2-secret@127.0.0.1:{port}/0");
        let registry = CapabilityRegistry::with_store(Arc::new(RedisStore::open(&url).unwrap()));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let key = CapabilityKey::new("openai", "m", "e");
        assert_eq!(registry.store_unreachable(), None);
        assert_eq!(runtime.block_on(registry.verdict(&key)), None);
        assert_eq!(runtime.block_on(registry.verdict(&key)), None);
        let why = registry.store_unreachable().unwrap();
        assert!(
            why.contains(&format!("redis://127.0.0.1:{port}/0")) && why.contains("connection refused"),
            "{why}"
        );
        assert!(!why.contains("hunter2"), "{why}");
        let checked = runtime.block_on(registry.check_store()).unwrap_err().to_string();
        assert!(checked.contains("connection refused"), "{checked}");
        assert!(!checked.contains("hunter2"), "{checked}");
    }
}
