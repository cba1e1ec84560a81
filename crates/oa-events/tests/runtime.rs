//! The runtime's graph features: conditional edges and their routing and edge errors (each on the node's
//! completed event, dispatched before the failure returns), caller-supplied invocation ids, metadata checked at
//! the boundary and augmented from a node, several invocations on one bus, and the queryable observers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use oa_events::{
    Event, EventBus, EventCounter, Graph, GraphError, GraphErrorCategory, InvocationAccumulator,
    InvocationError, InvokeOptions, MetadataError, NodeError, NodePhase, Observer, Route,
    get_invocation_metadata, set_invocation_metadata,
};
use serde_json::{Map, Value, json};
use support::Collect;

fn entries(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect()
}

fn update(value: Value) -> impl Fn(Value) -> std::future::Ready<Result<Value, NodeError>> + Send + Sync {
    move |_| std::future::ready(Ok(value.clone()))
}

/// `pick` sets `n`, then routes by it: 2 → `even`, else → the name the state's `target` says.
fn branching() -> Graph {
    Graph::builder()
        .node("pick", |state: Value| async move {
            Ok(json!({"n": state["n"].clone()}))
        })
        .node("even", update(json!({"parity": "even"})))
        .node("odd", update(json!({"parity": "odd"})))
        .conditional_edge("pick", |state| {
            Ok(match state["n"].as_i64() {
                Some(2) => Route::node("even"),
                _ => Route::Node(state["target"].as_str().unwrap_or("odd").to_owned()),
            })
        })
        .edge("even", Route::End)
        .edge("odd", Route::End)
        .build()
        .unwrap()
}

async fn run(
    graph: &Graph,
    state: Value,
    options: InvokeOptions,
) -> (Result<Value, InvocationError>, Vec<Event>) {
    let collect = Arc::new(Collect::default());
    let bus = EventBus::new(vec![collect.clone() as Arc<dyn Observer>]);
    let outcome = graph.invoke(&bus, state, options).await;
    bus.drain(Duration::from_secs(5)).await.unwrap();
    (outcome, collect.events())
}

fn node_names(events: &[Event]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::NodeStarted(node) => Some((node.scope.node_name.clone(), false)),
            Event::NodeCompleted(node) => Some((node.scope.node_name.clone(), true)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_conditional_edge_routes_on_the_post_update_state() {
    let (outcome, events) = run(&branching(), json!({"n": 2}), InvokeOptions::default()).await;
    assert_eq!(outcome.unwrap()["parity"], "even");
    let names = node_names(&events);
    assert_eq!(
        names,
        [
            ("pick".into(), false),
            ("pick".into(), true),
            ("even".into(), false),
            ("even".into(), true)
        ]
    );
    let (outcome, _) = run(&branching(), json!({"n": 3}), InvokeOptions::default()).await;
    assert_eq!(outcome.unwrap()["parity"], "odd");
}

#[tokio::test]
async fn a_route_to_no_node_is_a_routing_error_on_the_nodes_completed_event() {
    let (outcome, events) = run(
        &branching(),
        json!({"n": 5, "target": "nowhere"}),
        InvokeOptions::default(),
    )
    .await;
    let error = outcome.unwrap_err();
    assert_eq!(error.category(), Some(GraphErrorCategory::RoutingError));
    assert_eq!(error.node(), Some("pick"));
    assert_eq!(
        error.state().unwrap()["n"],
        5,
        "the post-update state is recoverable"
    );
    let completed = oa_testkit::variants!(events, Event::NodeCompleted)[0];
    assert_eq!(completed.graph_error, Some(GraphErrorCategory::RoutingError));
    let Some(Event::InvocationCompleted(end)) = events.last() else {
        panic!("the invocation's completed event comes last: {events:?}");
    };
    assert_eq!(end.error_category, Some(GraphErrorCategory::RoutingError));
    assert_eq!(end.final_node.as_deref(), Some("pick"));
    // Only `pick` ran.
    assert_eq!(node_names(&events).len(), 2);
}

#[tokio::test]
async fn an_edge_function_that_raises_is_an_edge_exception_and_a_raising_node_a_node_exception() {
    let graph = Graph::builder()
        .node("a", update(json!({})))
        .node("b", update(json!({})))
        .conditional_edge("a", |_| Err(NodeError::new("edge bug")))
        .edge("b", Route::End)
        .build()
        .unwrap();
    let (outcome, _) = run(&graph, json!({}), InvokeOptions::default()).await;
    assert_eq!(
        outcome.unwrap_err().category(),
        Some(GraphErrorCategory::EdgeException)
    );
    let raising = Graph::builder()
        .node("ok", update(json!({"v": 1})))
        .node("boom", |_| async { Err::<Value, _>(NodeError::new("boom")) })
        .build()
        .unwrap();
    let (outcome, events) = run(&raising, json!({}), InvokeOptions::default()).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.category(), Some(GraphErrorCategory::NodeException));
    assert_eq!(error.state().unwrap()["v"], 1);
    let failed = events.iter().find_map(|event| match event {
        Event::NodeCompleted(node) if node.error.is_some() => Some(node),
        _ => None,
    });
    assert_eq!(failed.unwrap().scope.node_name, "boom");
}

#[test]
fn edges_are_checked_when_the_graph_is_built() {
    let missing = Graph::builder()
        .node("a", update(json!({})))
        .node("b", update(json!({})))
        .edge("a", Route::node("b"))
        .build();
    assert_eq!(missing.unwrap_err(), GraphError::MissingEdge("b".into()));
    let twice = Graph::builder()
        .node("a", update(json!({})))
        .edge("a", Route::End)
        .edge("a", Route::End)
        .build();
    assert_eq!(twice.unwrap_err(), GraphError::DuplicateEdge("a".into()));
    let unknown = Graph::builder()
        .node("a", update(json!({})))
        .edge("a", Route::node("z"))
        .build();
    assert_eq!(unknown.unwrap_err(), GraphError::UnknownNode("z".into()));
    let entry = Graph::builder().node("a", update(json!({}))).entry("q").build();
    assert_eq!(entry.unwrap_err(), GraphError::UnknownNode("q".into()));
    // A node may be called "END": the sentinel is a distinct value.
    let named_end = Graph::builder()
        .node("END", update(json!({})))
        .edge("END", Route::End)
        .build()
        .unwrap();
    assert_eq!(named_end.entry_node(), "END");
}

#[tokio::test]
async fn a_caller_invocation_id_is_used_verbatim_and_a_bad_one_rejected_before_any_event() {
    let graph = Graph::builder().node("a", update(json!({}))).build().unwrap();
    let options = InvokeOptions {
        invocation_id: Some("run_abc123".into()),
        ..InvokeOptions::default()
    };
    let (outcome, events) = run(&graph, json!({}), options).await;
    outcome.unwrap();
    assert!(events.iter().all(|event| event.invocation_id() == "run_abc123"));
    for bad in ["", "has space", "a/b"] {
        let options = InvokeOptions {
            invocation_id: Some(bad.into()),
            ..InvokeOptions::default()
        };
        let (outcome, events) = run(&graph, json!({}), options).await;
        assert!(
            matches!(outcome, Err(InvocationError::InvalidInvocationId)),
            "{bad:?}"
        );
        assert!(events.is_empty());
    }
}

#[tokio::test]
async fn reserved_metadata_is_rejected_at_invoke_before_any_event() {
    let graph = Graph::builder().node("a", update(json!({}))).build().unwrap();
    for key in [
        "openarmature.user.x",
        "gen_ai.system",
        "step",
        "implementation_name",
    ] {
        let options = InvokeOptions {
            metadata: entries(&[("tenantId", json!("acme")), (key, json!("x"))]),
            ..InvokeOptions::default()
        };
        let (outcome, events) = run(&graph, json!({}), options).await;
        assert!(
            matches!(outcome, Err(InvocationError::InvalidMetadata(_))),
            "{key}"
        );
        assert!(events.is_empty(), "{key}: {events:?}");
    }
}

#[tokio::test]
async fn a_node_augments_and_reads_the_metadata_and_observers_hear_of_it() {
    let graph = Graph::builder()
        .node("augment", |_| async {
            let before = get_invocation_metadata();
            set_invocation_metadata(entries(&[("requestId", json!("req-xyz"))]))?;
            let after = get_invocation_metadata();
            // A snapshot does not change under later writes.
            assert!(!before.contains_key("requestId"));
            Ok(json!({"after": Value::Object((*after).clone())}))
        })
        .node("reserved", |_| async {
            let error = set_invocation_metadata(entries(&[("step", json!("checkout"))])).unwrap_err();
            assert!(matches!(error, MetadataError::ReservedKey { .. }));
            Ok(json!({"seen": Value::Object((*get_invocation_metadata()).clone())}))
        })
        .build()
        .unwrap();
    let options = InvokeOptions {
        metadata: entries(&[("tenantId", json!("T1"))]),
        ..InvokeOptions::default()
    };
    let (outcome, events) = run(&graph, json!({}), options).await;
    let state = outcome.unwrap();
    assert_eq!(state["after"], json!({"tenantId": "T1", "requestId": "req-xyz"}));
    assert_eq!(state["seen"], json!({"tenantId": "T1", "requestId": "req-xyz"}));
    let augmented = oa_testkit::variants!(events, Event::MetadataAugmented);
    assert_eq!(augmented.len(), 1, "the rejected write dispatched nothing");
    assert_eq!(augmented[0].entries, entries(&[("requestId", json!("req-xyz"))]));
    assert_eq!(augmented[0].scope.node_name, "augment");
    // Delivered between the node's started and completed events.
    let position = |wanted: &dyn Fn(&Event) -> bool| events.iter().position(wanted).unwrap();
    let started = position(&|e| matches!(e, Event::NodeStarted(n) if n.scope.node_name == "augment"));
    let completed = position(&|e| matches!(e, Event::NodeCompleted(n) if n.scope.node_name == "augment"));
    let aug = position(&|e| matches!(e, Event::MetadataAugmented(_)));
    assert!(started < aug && aug < completed);
    let Some(Event::InvocationCompleted(end)) = events.last() else {
        panic!("no completed invocation event");
    };
    assert_eq!(end.metadata["requestId"], "req-xyz");
}

#[tokio::test]
async fn invocations_sharing_a_bus_get_distinct_ids_and_the_accumulator_keeps_buckets_until_dropped() {
    let counter = Arc::new(EventCounter::default());
    let accumulator = Arc::new(InvocationAccumulator::default());
    let bus = EventBus::new(vec![
        counter.clone() as Arc<dyn Observer>,
        accumulator.clone() as Arc<dyn Observer>,
    ]);
    let graph = Graph::builder()
        .node("a", update(json!({})))
        .node("b", update(json!({})))
        .build()
        .unwrap();
    for id in ["inv-1", "inv-2"] {
        let options = InvokeOptions {
            invocation_id: Some(id.into()),
            ..InvokeOptions::default()
        };
        graph.invoke(&bus, json!({}), options).await.unwrap();
    }
    bus.drain(Duration::from_secs(5)).await.unwrap();
    assert_eq!(counter.count(), 8, "four node events per invocation");
    assert_eq!(
        accumulator.invocation_ids(),
        ["inv-1", "inv-2"],
        "no drop on completion"
    );
    let bucket = accumulator.bucket("inv-1").unwrap();
    assert_eq!(bucket.len(), 4);
    assert_eq!(bucket[0].0, NodePhase::Started);
    assert!(bucket.iter().all(|(_, node)| node.scope.invocation_id == "inv-1"));
    assert!(accumulator.drop_invocation("inv-1"));
    assert!(accumulator.bucket("inv-1").is_none());
    assert!(!accumulator.drop_invocation("inv-1"));
    assert_eq!(accumulator.bucket("inv-2").unwrap().len(), 4);
}
