//! Formations: a graph of agents, fleets and functions, as domain rules.
//!
//! A formation's nodes are an agent (its input becomes a message, its
//! output is the response), a fleet (its input must be a list: one task per
//! item; its output is the list of responses in order) or one of the
//! built-in pure functions ([`functions`]). Edges carry a node's output to
//! the next; a node with several inputs receives them as a list, in the
//! order of its edges. A node starts when all its inputs are stored.
//!
//! This module says what a formation may be ([`check`]); [`run`] says what
//! a formation run does when it starts and when each node ends. Nothing
//! here touches a database: the backends persist what the rules decide, in
//! the transaction that ends the node before, so each node starts once.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod functions;
pub mod run;

pub use functions::Function;

/// The most nodes a formation may have.
pub const MAX_NODES: usize = 200;
/// The longest node ID.
pub const MAX_NODE_ID_LEN: usize = 64;

impl crate::domain::model::Owned for Formation {
    fn owner(&self) -> &str {
        &self.owner
    }
    fn shared(&self) -> bool {
        self.shared
    }
}

impl crate::domain::model::Owned for run::FormationRun {
    fn owner(&self) -> &str {
        &self.owner
    }
}

/// A formation as stored: its graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Formation {
    pub id: String,
    pub name: String,
    /// In the order given.
    pub nodes: Vec<Node>,
    /// In the order given: a node with several inputs receives them in this order.
    pub edges: Vec<Edge>,
    /// The owner whose key made it; set by the server, never by a client.
    #[serde(default = "crate::domain::model::first_admin")]
    pub owner: String,
    /// Every owner may read and use it; only its owner or an admin may change it.
    #[serde(default)]
    pub shared: bool,
    /// 1 when made, one more with each change: what `If-Match` names to
    /// make a change only over the version read.
    #[serde(default = "crate::domain::model::first_version")]
    pub version: u64,
    #[serde(with = "crate::domain::model::timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "crate::domain::model::timestamp")]
    pub updated_at: DateTime<Utc>,
}

/// A node: `{"id", "agent_id"}`, `{"id", "fleet_id"}` or `{"id", "function", "args"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// `[A-Za-z0-9_-]`, 1 to 64 characters, unique in the formation.
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$")]
    pub id: String,
    /// An agent node: the agent that answers its input as a message.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "given")]
    pub agent_id: Option<String>,
    /// A fleet node: the fleet that runs one task per item of its input.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "given")]
    pub fleet_id: Option<String>,
    /// A function node: `split_lines`, `json_path`, `join` or `template`.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "given")]
    #[schema(pattern = "^(split_lines|json_path|join|template)$")]
    pub function: Option<String>,
    /// A function's arguments (`json_path`: `{"path"}`; `join`:
    /// `{"separator"?}`; `template`: `{"template"}`).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "given")]
    #[schema(value_type = Option<Object>)]
    pub args: Option<Value>,
}

/// A field that may be left out but, given, is not `null`: a node is one
/// kind, and `"agent_id": null` beside a `function` is no way to say so.
fn given<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// What a node is, once checked.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind<'a> {
    Agent(&'a str),
    Fleet(&'a str),
    Function(Function),
}

impl Node {
    /// What the node is; `Err` says why it is none or several of them.
    pub fn kind(&self) -> Result<NodeKind<'_>, String> {
        let args = self.args.as_ref();
        match (&self.agent_id, &self.fleet_id, &self.function) {
            (Some(agent), None, None) if args.is_none() => Ok(NodeKind::Agent(agent)),
            (None, Some(fleet), None) if args.is_none() => Ok(NodeKind::Fleet(fleet)),
            (None, None, Some(name)) => Function::parse(name, args).map(NodeKind::Function),
            (None, None, None) => Err("needs one of agent_id, fleet_id or function".into()),
            (_, _, None) if args.is_some() => Err("args belong to function nodes".into()),
            _ => Err("has more than one of agent_id, fleet_id and function".into()),
        }
    }

    /// Its kind's name, as events and pages show it.
    pub fn kind_name(&self) -> &'static str {
        match (&self.agent_id, &self.fleet_id) {
            (Some(_), _) => "agent",
            (_, Some(_)) => "fleet",
            _ => "function",
        }
    }
}

/// An edge: `from`'s output is (one of) `to`'s inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$")]
    pub from: String,
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$")]
    pub to: String,
}

/// What a node's output, or a formation's input, is known to be before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Text,
    List,
    /// Known only when it is there (a `json_path`'s, the formation's input).
    Any,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Text => "text",
            Shape::List => "a list",
            Shape::Any => "any value",
        }
    }
}

/// The nodes whose outputs are `node`'s inputs, in edge order.
pub fn inputs_of<'a>(edges: &'a [Edge], node: &'a str) -> impl Iterator<Item = &'a str> {
    edges.iter().filter(move |e| e.to == node).map(|e| e.from.as_str())
}

/// The nodes no edge leads to: they take the formation's input.
pub fn entries(formation_nodes: &[Node], edges: &[Edge]) -> Vec<String> {
    let fed: BTreeSet<&str> = edges.iter().map(|e| e.to.as_str()).collect();
    formation_nodes.iter().filter(|n| !fed.contains(n.id.as_str())).map(|n| n.id.clone()).collect()
}

/// The nodes no edge leaves: their outputs are the formation run's outputs.
pub fn exits(formation_nodes: &[Node], edges: &[Edge]) -> Vec<String> {
    let feeding: BTreeSet<&str> = edges.iter().map(|e| e.from.as_str()).collect();
    formation_nodes.iter().filter(|n| !feeding.contains(n.id.as_str())).map(|n| n.id.clone()).collect()
}

/// Checks a formation's graph: its name, its nodes (valid, unique IDs, one
/// kind each, known functions with valid args), its edges (between known
/// nodes, no loop, no repeat), no cycle, an entry node, and that every
/// node is fed what it can take (a fleet a list, `split_lines` text,
/// `join` a list) where that is known before it runs. Agents and fleets
/// are the store's to know: see [`references`].
pub fn check(name: &str, nodes: &[Node], edges: &[Edge]) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("name must not be empty".into());
    }
    if nodes.is_empty() || nodes.len() > MAX_NODES {
        return Err(format!("nodes must hold 1 to {MAX_NODES} nodes"));
    }
    let mut ids = BTreeSet::new();
    for node in nodes {
        check_node_id(&node.id)?;
        if !ids.insert(node.id.as_str()) {
            return Err(format!("nodes: the ID {:?} is used twice", node.id));
        }
        node.kind().map_err(|e| format!("node {:?} {e}", node.id))?;
    }
    check_edges(&ids, edges)?;
    if entries(nodes, edges).is_empty() {
        return Err("no entry node: every node has an input, so none could take the run's input".into());
    }
    let order = topological(nodes, edges)?;
    check_shapes(nodes, edges, &order)
}

fn check_node_id(id: &str) -> Result<(), String> {
    let valid = !id.is_empty()
        && id.len() <= MAX_NODE_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!("nodes: {id:?} is not a node ID ([A-Za-z0-9_-], 1 to {MAX_NODE_ID_LEN} characters)"))
    }
}

fn check_edges(ids: &BTreeSet<&str>, edges: &[Edge]) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for (i, edge) in edges.iter().enumerate() {
        for end in [&edge.from, &edge.to] {
            if !ids.contains(end.as_str()) {
                return Err(format!("edges[{i}]: unknown node {end:?}"));
            }
        }
        if edge.from == edge.to {
            return Err(format!("edges[{i}]: a cycle: {:?} feeds itself", edge.from));
        }
        if !seen.insert((edge.from.as_str(), edge.to.as_str())) {
            return Err(format!("edges[{i}]: {:?} → {:?} is given twice", edge.from, edge.to));
        }
    }
    Ok(())
}

/// The nodes in an order where each comes after its inputs (Kahn's), or
/// the cycle that prevents one.
fn topological<'a>(nodes: &'a [Node], edges: &'a [Edge]) -> Result<Vec<&'a str>, String> {
    let mut waiting: BTreeMap<&str, usize> = nodes.iter().map(|n| (n.id.as_str(), 0)).collect();
    for edge in edges {
        *waiting.get_mut(edge.to.as_str()).expect("checked edges") += 1;
    }
    let mut ready: VecDeque<&str> = nodes.iter().map(|n| n.id.as_str()).filter(|id| waiting[id] == 0).collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(id) = ready.pop_front() {
        order.push(id);
        for edge in edges.iter().filter(|e| e.from == id) {
            let count = waiting.get_mut(edge.to.as_str()).expect("checked edges");
            *count -= 1;
            if *count == 0 {
                ready.push_back(edge.to.as_str());
            }
        }
    }
    if order.len() < nodes.len() {
        let stuck: Vec<&str> = waiting.iter().filter(|(_, n)| **n > 0).map(|(id, _)| *id).collect();
        return Err(format!("a cycle: the nodes {} feed one another", stuck.join(", ")));
    }
    Ok(order)
}

/// What a node outputs, before it runs.
fn output_shape(node: &Node) -> Shape {
    match node.kind() {
        Ok(NodeKind::Agent(_)) => Shape::Text,
        Ok(NodeKind::Fleet(_)) => Shape::List,
        Ok(NodeKind::Function(f)) => f.output_shape(),
        Err(_) => Shape::Any,
    }
}

fn check_shapes(nodes: &[Node], edges: &[Edge], order: &[&str]) -> Result<(), String> {
    let by_id: BTreeMap<&str, &Node> = nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    for id in order {
        let node = by_id[id];
        let inputs: Vec<&str> = inputs_of(edges, id).collect();
        let fed = match inputs.as_slice() {
            [] => Shape::Any,
            [one] => output_shape(by_id[one]),
            _ => Shape::List,
        };
        let wants = match node.kind() {
            Ok(NodeKind::Fleet(_)) => Shape::List,
            Ok(NodeKind::Function(f)) => f.input_shape(),
            _ => Shape::Any,
        };
        if wants != Shape::Any && fed != Shape::Any && fed != wants {
            return Err(format!(
                "node {id:?} takes {} but is fed {} (from {})",
                wants.name(),
                fed.name(),
                inputs.join(", ")
            ));
        }
    }
    Ok(())
}

/// The agents and the fleets a formation's nodes name, each once.
pub fn references(nodes: &[Node]) -> (Vec<&str>, Vec<&str>) {
    let mut agents = BTreeSet::new();
    let mut fleets = BTreeSet::new();
    for node in nodes {
        match node.kind() {
            Ok(NodeKind::Agent(id)) => agents.insert(id),
            Ok(NodeKind::Fleet(id)) => fleets.insert(id),
            _ => false,
        };
    }
    (agents.into_iter().collect(), fleets.into_iter().collect())
}

/// Checks a formation's input for its entry fleet nodes, which take a list
/// (a fleet run is refused at submission, and so is a formation run that
/// would start one on something else). An entry function given what it
/// cannot take fails when the run computes it, as any node would.
pub fn check_input(nodes: &[Node], edges: &[Edge], input: &Value) -> Result<(), String> {
    let entry = entries(nodes, edges);
    let fleets = nodes.iter().filter(|n| entry.contains(&n.id) && matches!(n.kind(), Ok(NodeKind::Fleet(_))));
    match fleets.map(|n| &n.id).next() {
        Some(id) if !input.is_array() => Err(format!("input: the entry node {id:?} is a fleet node and takes a list")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
