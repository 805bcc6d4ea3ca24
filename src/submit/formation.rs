//! A formation run: its snapshot of the graph, agents and fleets, written
//! with what its entry nodes start.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::domain::formation::run::{FleetSnapshot, NewFormationRun, Snapshot};
use crate::domain::formation::{self, Formation};
use crate::domain::model::new_id;
use crate::domain::webhook::Webhook;
use crate::store::EnqueuedFormationRun;

use super::{checks, Door, Envelope, SubmitError, SubmitResult};

/// A formation run of `input` (`POST /formations/{id}/run`, a schedule's
/// formation target).
#[derive(Debug, Clone, Default, Serialize)]
pub struct FormationRunSubmission {
    #[serde(skip)]
    pub formation_id: String,
    /// What its entry nodes take: text for an agent, a list for a fleet.
    pub input: Value,
    /// Where the formation run's end is announced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<Webhook>,
}

impl Door {
    /// Writes a formation run and what its start makes ready.
    pub async fn formation_run(
        &self,
        envelope: &Envelope,
        submission: FormationRunSubmission,
    ) -> SubmitResult<EnqueuedFormationRun> {
        let id = submission.formation_id.clone();
        let not_found = || SubmitError::NotFound(format!("formation {id}"));
        let formation = self.store.get_formation(&id).await?.ok_or_else(not_found)?;
        formation::check_input(&formation.nodes, &formation.edges, &submission.input).map_err(SubmitError::Invalid)?;
        // What a key stands for: the body as the API first hashed it.
        let canonical = serde_json::to_string(&submission).map_err(|e| SubmitError::Internal(e.to_string()))?;
        let key = envelope.key(&format!("formation:{id}"), &[&canonical]);
        let webhook = checks::webhook_url(&self.config.webhooks, submission.webhook.as_ref(), None)?;
        // Counted as one run: what a formation queues at once depends on its graph.
        self.check_queue_room(&envelope.carried.owner, 1).await?;
        let run_id = new_id();
        let mut snapshot = self.snapshot(formation, &run_id).await?;
        (snapshot.webhook, snapshot.carried) = (webhook, envelope.carried.clone());
        let new = NewFormationRun { id: run_id, snapshot, input: submission.input };
        let enqueued =
            self.store.enqueue_formation_run(new, key).await.map_err(SubmitError::naming(format!("formation {id}")))?;
        self.written();
        Ok(enqueued)
    }

    /// What the run `run_id` of `formation` holds: the graph, its agents and
    /// fleets (with theirs) as they are now, and where its nodes work
    /// (`<data dir>/formation-runs/<run id>/<node>`).
    async fn snapshot(&self, formation: Formation, run_id: &str) -> SubmitResult<Snapshot> {
        let gone = |what: &str, id: &str| {
            SubmitError::Refused(format!("the formation's {what} {id} no longer exists: create the formation anew"))
        };
        let (agent_ids, fleet_ids) = formation::references(&formation.nodes);
        let mut agents = BTreeMap::new();
        for id in agent_ids {
            agents.insert(id.to_string(), self.store.get_agent(id).await?.ok_or_else(|| gone("agent", id))?);
        }
        let mut fleets = BTreeMap::new();
        for id in fleet_ids {
            let fleet = self.store.get_fleet(id).await?.ok_or_else(|| gone("fleet", id))?;
            let agent =
                self.store.get_agent(&fleet.agent_id).await?.ok_or_else(|| gone("fleet's agent", &fleet.agent_id))?;
            fleets.insert(id.to_string(), FleetSnapshot { fleet, agent });
        }
        let work_dir = self.config.data_dir.join("formation-runs").join(run_id);
        Ok(Snapshot {
            formation,
            agents,
            fleets,
            work_dir: work_dir.display().to_string(),
            max_attempts: self.config.max_attempts,
            webhook: None,
            carried: Default::default(),
        })
    }
}
