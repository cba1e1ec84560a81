//! The tool-call instrumentation scope (graph-engine §6) and session-bound invocations: exactly one terminal tool
//! event per execution, dispatched inside the node before its completed event, the error returned unchanged; and a
//! session id carried on every event of the invocations bound to it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use oa_events::{
    Event, EventBus, Graph, InvocationError, InvokeOptions, NodeError, Observer, ToolError, ToolFailure,
    ToolInvocation, call_tool, set_invocation_metadata,
};
use serde_json::{Map, Value, json};
use support::Collect;

async fn run(graph: &Graph, options: InvokeOptions) -> (Result<Value, InvocationError>, Vec<Event>) {
    let collect = Arc::new(Collect::default());
    let bus = EventBus::new(vec![collect.clone() as Arc<dyn Observer>]);
    let outcome = graph.invoke(&bus, json!({}), options).await;
    bus.drain(Duration::from_secs(5)).await.unwrap();
    (outcome, collect.events())
}

fn weather() -> ToolInvocation {
    ToolInvocation::new("get_weather")
        .with_tool_call_id("call_abc123")
        .with_arguments(json!({"city": "Paris"}))
}

/// The position of each event kind in the stream, by its serialised `kind`.
fn kinds(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(event).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_returning_tool_dispatches_one_tool_call_event_inside_its_node() {
    let graph = Graph::builder()
        .node("run_tool", |_| async {
            let result = call_tool(weather(), async {
                Ok::<_, ToolFailure>(json!({"temperature_c": 20}))
            })
            .await?;
            Ok::<_, NodeError>(json!({"weather": result}))
        })
        .build()
        .unwrap();
    let (outcome, events) = run(&graph, InvokeOptions::default()).await;
    assert_eq!(outcome.unwrap()["weather"], json!({"temperature_c": 20}));
    assert_eq!(
        kinds(&events),
        [
            "invocation_started",
            "node_started",
            "tool_call",
            "node_completed",
            "invocation_completed"
        ]
    );
    let Some(Event::ToolCall(event)) = events.iter().find(|e| matches!(e, Event::ToolCall(_))) else {
        panic!("no tool event");
    };
    assert_eq!(event.tool, weather());
    assert_eq!(event.result, json!({"temperature_c": 20}));
    assert_eq!(event.scope.node_name, "run_tool");
    assert_eq!(event.scope.namespace, ["run_tool"]);
    assert_eq!(event.scope.invocation_id, events[0].invocation_id());
    assert!(event.latency_ms.is_some_and(|ms| ms >= 0.0));
    assert!(event.call_id.starts_with("tool_") && event.call_id.len() > 5);
    // The typed form: identity flattened beside the tool's fields, no error fields.
    let value = serde_json::to_value(event).unwrap();
    assert_eq!(value["tool_name"], "get_weather");
    assert_eq!(value["tool_call_id"], "call_abc123");
    assert_eq!(value["arguments"], json!({"city": "Paris"}));
    assert_eq!(value["node_name"], "run_tool");
    assert!(value.get("error_type").is_none() && value.get("error_message").is_none());
}

#[tokio::test]
async fn a_raising_tool_dispatches_one_failed_event_and_its_error_propagates() {
    let graph = Graph::builder()
        .node("run_tool", |_| async {
            call_tool(weather(), async {
                Err::<Value, _>(ToolFailure::new("TimeoutError", "tool timed out"))
            })
            .await?;
            Ok::<_, NodeError>(json!({}))
        })
        .build()
        .unwrap();
    let (outcome, events) = run(&graph, InvokeOptions::default()).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.node(), Some("run_tool"));
    let InvocationError::Node { source, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(
        source.tool_failure(),
        Some(&ToolFailure::new("TimeoutError", "tool timed out"))
    );
    // The node's own message names the type, not the harvested text.
    assert_eq!(source.to_string(), "tool call failed: TimeoutError");
    assert!(!events.iter().any(|e| matches!(e, Event::ToolCall(_))));
    let failed = oa_testkit::variants!(events, Event::ToolCallFailed);
    let [failed] = failed.as_slice() else {
        panic!("{failed:?}");
    };
    assert_eq!(failed.error_type.as_deref(), Some("TimeoutError"));
    assert_eq!(failed.error_message, "tool timed out");
    let value = serde_json::to_value(failed).unwrap();
    assert!(value.get("error_category").is_none(), "{value}");
    assert!(value.get("result").is_none(), "{value}");
}

#[derive(Debug)]
struct QuotaExceeded;

impl std::fmt::Display for QuotaExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("daily quota exceeded")
    }
}

impl ToolError for QuotaExceeded {}

#[tokio::test]
async fn a_callers_own_error_type_names_itself_and_is_returned_unchanged() {
    let graph = Graph::builder()
        .node("run_tool", |_| async {
            let outcome = call_tool(ToolInvocation::new("lookup"), async {
                Err::<Value, _>(QuotaExceeded)
            })
            .await;
            // The caller decides what to do with it: here, record it and carry on.
            Ok::<_, NodeError>(json!({"failed": outcome.is_err()}))
        })
        .build()
        .unwrap();
    let (outcome, events) = run(&graph, InvokeOptions::default()).await;
    assert_eq!(outcome.unwrap()["failed"], true);
    let Some(Event::ToolCallFailed(failed)) = events.iter().find(|e| matches!(e, Event::ToolCallFailed(_)))
    else {
        panic!("no failed event");
    };
    assert_eq!(failed.error_type.as_deref(), Some("QuotaExceeded"));
    assert_eq!(failed.error_message, "daily quota exceeded");
    assert_eq!(
        failed.tool.tool_call_id, None,
        "a standalone execution is not given an id"
    );
    assert_eq!(failed.tool.arguments, None);
}

#[tokio::test]
async fn each_execution_gets_its_own_call_id_and_the_metadata_in_scope_at_entry() {
    let graph = Graph::builder()
        .node("run_tools", |_| async {
            call_tool(ToolInvocation::new("first"), async { Ok::<_, ToolFailure>(1) }).await?;
            let mut entries = Map::new();
            entries.insert("stage".into(), json!("second"));
            set_invocation_metadata(entries)?;
            call_tool(ToolInvocation::new("second"), async { Ok::<_, ToolFailure>(2) }).await?;
            Ok::<_, NodeError>(json!({}))
        })
        .build()
        .unwrap();
    let mut metadata = Map::new();
    metadata.insert("tenantId".into(), json!("acme"));
    let options = InvokeOptions {
        metadata,
        ..InvokeOptions::default()
    };
    let (outcome, events) = run(&graph, options).await;
    outcome.unwrap();
    let tools = oa_testkit::variants!(events, Event::ToolCall);
    assert_eq!(tools.len(), 2);
    assert_ne!(tools[0].call_id, tools[1].call_id);
    assert_eq!(tools[0].result, json!(1));
    let first = tools[0].scope.caller_invocation_metadata.clone().unwrap();
    assert_eq!(first.get("stage"), None);
    assert_eq!(first["tenantId"], "acme");
    let second = tools[1].scope.caller_invocation_metadata.clone().unwrap();
    assert_eq!(second["stage"], "second");
}

#[tokio::test]
async fn outside_a_graph_the_tool_runs_and_nothing_is_dispatched() {
    let outcome = call_tool(weather(), async { Ok::<_, ToolFailure>("sunny") }).await;
    assert_eq!(outcome, Ok("sunny"));
}

#[tokio::test]
async fn a_session_id_reaches_every_event_and_an_empty_one_is_refused_before_any() {
    let graph = Graph::builder()
        .node("run_tool", |_| async {
            call_tool(ToolInvocation::new("lookup"), async {
                Ok::<_, ToolFailure>(true)
            })
            .await?;
            Ok::<_, NodeError>(json!({}))
        })
        .build()
        .unwrap();
    let bound = || InvokeOptions {
        session_id: Some("sess-xyz".into()),
        ..InvokeOptions::default()
    };
    let (first, events) = run(&graph, bound()).await;
    first.unwrap();
    for event in &events {
        let value = serde_json::to_value(event).unwrap();
        let session = match event {
            Event::InvocationStarted(_) | Event::InvocationCompleted(_) => &value["session_id"],
            Event::NodeStarted(_) | Event::NodeCompleted(_) => &value["scope"]["session_id"],
            _ => &value["session_id"],
        };
        assert_eq!(session, "sess-xyz", "{value}");
    }
    let (second, more) = run(&graph, bound()).await;
    second.unwrap();
    assert_ne!(events[0].invocation_id(), more[0].invocation_id());
    // Unbound: no session on the wire at all.
    let (_, unbound) = run(&graph, InvokeOptions::default()).await;
    let value = serde_json::to_value(&unbound[0]).unwrap();
    assert!(value.get("session_id").is_none(), "{value}");
    let empty = InvokeOptions {
        session_id: Some(String::new()),
        ..InvokeOptions::default()
    };
    let (refused, nothing) = run(&graph, empty).await;
    assert!(matches!(refused, Err(InvocationError::InvalidSessionId)));
    assert!(nothing.is_empty());
}
