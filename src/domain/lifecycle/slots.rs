//! Concurrency keys' slots, and owners': which of a claim's candidates
//! start, and which are held until their key (or owner) has a free slot.
//!
//! A key's slots are counted from the runs of the key that are `running`,
//! read when a claim decides, so nothing is kept that could drift: a run
//! that waits for a person or a client is not running and has given its
//! slot back, and a run whose worker died keeps its slot until it is
//! rescued or ends. A held run leaves the ready index, so later claims do
//! not walk past it again; each claim first gives a held key's runs as many
//! places back as the key has free slots ([`free_slots`]).
//!
//! An owner's `max_running_runs` ([`crate::domain::quota`]) is a slot of the
//! same kind, counted from the owner's running runs: a run starts only
//! while both its key and its owner have a free slot.

use std::collections::HashMap;

/// How many times a claim picks again after holding runs, so that a queue
/// whose best runs all belong to full keys still starts what else it has:
/// each store's pick reads the best runs, sorts them ([`Taken::sort`]),
/// holds what must wait, and reads on past them.
pub const MAX_ROUNDS: usize = 8;

/// What a run's place counts against: its concurrency key, or its owner
/// (whose quota limits its running runs). The two never share a count, so
/// a key spelled like an owner is a key of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    Key(String),
    Owner(String),
}

/// A queued run at the head of its session that a claim considers, best
/// first (the highest priority, then the oldest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its place in the queue, which names it to the claim's update.
    pub queue_seq: i64,
    /// Its concurrency key and limit, if it has one.
    pub key: Option<(String, u32)>,
    /// Its owner and the owner's `max_running_runs`, if the owner has one.
    pub owner: Option<(String, u32)>,
}

impl Candidate {
    /// The slots the run needs, each with its limit: its key's, then its owner's.
    fn slots(&self) -> Vec<(Slot, u32)> {
        let key = self.key.iter().map(|(key, limit)| (Slot::Key(key.clone()), *limit));
        key.chain(self.owner.iter().map(|(owner, limit)| (Slot::Owner(owner.clone()), *limit))).collect()
    }
}

/// What a claim does with its candidates.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sorted {
    /// The runs it starts, best first.
    pub start: Vec<i64>,
    /// The runs it holds, with the slot that is full and its limit.
    pub hold: Vec<(i64, Slot, u32)>,
}

impl Sorted {
    /// The full slots of the held runs, each once with the limit of its
    /// first held run: each is at its limit, so the store holds every ready
    /// run of it that this claim does not start, not only those it read.
    pub fn full_keys(&self) -> Vec<(&Slot, u32)> {
        let mut keys: Vec<(&Slot, u32)> = Vec::new();
        for (_, slot, limit) in &self.hold {
            if !keys.iter().any(|(seen, _)| *seen == slot) {
                keys.push((slot, *limit));
            }
        }
        keys
    }
}

/// The slots a claim has counted and taken so far: each key's (and
/// owner's) running runs as first read, plus the runs this claim started.
/// It lives for the whole claim, across its rounds, since the runs it
/// started are not `running` until its update.
#[derive(Debug, Default)]
pub struct Taken(HashMap<Slot, u32>);

impl Taken {
    /// The slots of `candidates` whose running runs are not counted yet.
    pub fn uncounted(&self, candidates: &[Candidate]) -> Vec<Slot> {
        let mut slots: Vec<Slot> = Vec::new();
        for (slot, _) in candidates.iter().flat_map(Candidate::slots) {
            if !self.0.contains_key(&slot) && !slots.contains(&slot) {
                slots.push(slot);
            }
        }
        slots
    }

    /// Sorts `candidates` (best first) into at most `room` that start and
    /// those held: a run starts while each of its slots' running runs
    /// (`running(slot)`, asked once per slot per claim) and the ones this
    /// claim started stay under its limit; it is held by the first that is
    /// full. Candidates after the room is full are left as they are.
    pub fn sort<E>(
        &mut self,
        candidates: Vec<Candidate>,
        room: usize,
        mut running: impl FnMut(&Slot) -> Result<u32, E>,
    ) -> Result<Sorted, E> {
        let mut sorted = Sorted::default();
        for candidate in candidates {
            if sorted.start.len() == room {
                break;
            }
            let slots = candidate.slots();
            let mut full = None;
            for (slot, limit) in &slots {
                if !self.0.contains_key(slot) {
                    let n = running(slot)?;
                    self.0.insert(slot.clone(), n);
                }
                if full.is_none() && self.0[slot] >= *limit {
                    full = Some((slot.clone(), *limit));
                }
            }
            match full {
                Some((slot, limit)) => sorted.hold.push((candidate.queue_seq, slot, limit)),
                None => {
                    for (slot, _) in &slots {
                        *self.0.entry(slot.clone()).or_default() += 1;
                    }
                    sorted.start.push(candidate.queue_seq);
                }
            }
        }
        Ok(sorted)
    }
}

/// How many of a key's held runs go back to the ready index: its free
/// slots, less the runs of the key already there waiting for a claim.
pub fn free_slots(limit: u32, running: u32, ready: u32) -> u32 {
    limit.saturating_sub(running.saturating_add(ready))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed(queue_seq: i64, key: &str, limit: u32) -> Candidate {
        Candidate { queue_seq, key: Some((key.into(), limit)), owner: None }
    }

    fn plain(queue_seq: i64) -> Candidate {
        Candidate { queue_seq, key: None, owner: None }
    }

    fn key(name: &str) -> Slot {
        Slot::Key(name.into())
    }

    #[test]
    fn a_key_at_its_limit_is_held_and_the_rest_start_in_order() {
        let candidates =
            vec![keyed(1, "a", 2), keyed(2, "a", 2), plain(3), keyed(4, "b", 1), keyed(5, "b", 1), keyed(6, "a", 2)];
        let mut asked = Vec::new();
        let running = |slot: &Slot| {
            asked.push(slot.clone());
            Ok::<_, ()>(if *slot == key("a") { 1 } else { 0 })
        };
        let sorted = Taken::default().sort(candidates, 10, running).unwrap();
        assert_eq!(sorted.start, [1, 3, 4], "one slot of a is free, one of b");
        let held: Vec<i64> = sorted.hold.iter().map(|h| h.0).collect();
        assert_eq!(held, [2, 5, 6]);
        assert_eq!(sorted.full_keys(), [(&key("a"), 2), (&key("b"), 1)], "each full key once, in the order met");
        assert_eq!(asked, [key("a"), key("b")], "each key's running runs read once");
    }

    #[test]
    fn the_room_bounds_what_starts_and_what_follows_is_left_alone() {
        let candidates = vec![keyed(1, "a", 1), keyed(2, "a", 1), plain(3)];
        let sorted = Taken::default().sort(candidates.clone(), 1, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!((sorted.start, sorted.hold), (vec![1], vec![]));
        let sorted = Taken::default().sort(candidates, 5, |_| Ok::<_, ()>(1)).unwrap();
        assert_eq!(sorted.start, [3], "a full key's runs are held, the unkeyed one starts");
        assert_eq!(sorted.hold.len(), 2);
        assert_eq!(Taken::default().sort(vec![keyed(1, "a", 1)], 1, |_| Err("down")), Err("down"));
    }

    #[test]
    fn what_a_claim_started_counts_in_its_later_rounds() {
        let mut taken = Taken::default();
        let first = taken.sort(vec![keyed(1, "a", 2)], 1, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!(first.start, [1]);
        assert_eq!(taken.uncounted(&[keyed(2, "a", 2), keyed(3, "b", 1), keyed(4, "b", 1)]), [key("b")]);
        let second = taken.sort(vec![keyed(2, "a", 2), keyed(3, "a", 2)], 5, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!((second.start, second.hold.len()), (vec![2], 1), "two of a in all, not three");
    }

    #[test]
    fn a_run_starts_only_while_its_key_and_its_owner_both_have_a_free_slot() {
        let owned = |queue_seq: i64, key: Option<&str>, owner: &str, limit: u32| Candidate {
            queue_seq,
            key: key.map(|k| (k.to_string(), 5)),
            owner: Some((owner.to_string(), limit)),
        };
        let bob = Slot::Owner("bob".into());
        let candidates =
            vec![owned(1, None, "bob", 2), owned(2, Some("k"), "bob", 2), owned(3, None, "bob", 2), plain(4)];
        let running = |slot: &Slot| Ok::<_, ()>(if *slot == bob { 1 } else { 0 });
        let sorted = Taken::default().sort(candidates, 10, running).unwrap();
        assert_eq!(sorted.start, [1, 4], "bob runs one already: one more of his starts");
        assert_eq!(sorted.full_keys(), [(&bob, 2)], "bob's other runs are held by his owner's slot");
        // A key named like an owner counts apart from the owner.
        let candidates = vec![keyed(1, "bob", 1), owned(2, None, "bob", 1)];
        let sorted = Taken::default().sort(candidates, 10, |_| Ok::<_, ()>(0)).unwrap();
        assert_eq!(sorted.start, [1, 2]);
        // A full key holds a run before its owner is asked to count it.
        let candidates = vec![owned(1, Some("k"), "bob", 3)];
        let sorted = Taken::default().sort(candidates, 10, |slot| Ok::<_, ()>(if *slot == key("k") { 5 } else { 0 }));
        assert_eq!(sorted.unwrap().hold, [(1, key("k"), 5)]);
    }

    #[test]
    fn held_runs_go_back_only_into_free_slots_not_already_claimable() {
        assert_eq!(free_slots(3, 1, 0), 2);
        assert_eq!(free_slots(3, 1, 1), 1);
        assert_eq!(free_slots(2, 2, 0), 0);
        assert_eq!(free_slots(2, 3, 0), 0, "a lowered limit frees nothing until enough end");
    }
}
