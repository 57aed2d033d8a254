//! The simulation's receive, delete, visibility-change and purge steps, each checked against
//! the model as it happens.

use super::*;

impl Sim {
    pub(super) fn receive(&mut self, qi: usize) -> Check {
        let now = self.now;
        let max = self.rng.random_range(1..=10usize);
        let mut p = json!({
            "QueueUrl": self.qs[qi].url,
            "MaxNumberOfMessages": max,
            "WaitTimeSeconds": 0,
            "AttributeNames": ["All"],
        });
        let vis_ms = match self.rng.random_range(0..10u32) {
            0..=3 => self.qs[qi].visibility_ms,
            4..=5 => {
                p["VisibilityTimeout"] = json!(0);
                0
            }
            6..=8 => {
                let v = self.rng.random_range(1..30u64);
                p["VisibilityTimeout"] = json!(v);
                v * 1000
            }
            _ => {
                let v = self.rng.random_range(60..=43_200u64);
                p["VisibilityTimeout"] = json!(v);
                v * 1000
            }
        };
        // A third of attempt ids retry the queue's previous one, as a client that lost an answer.
        let attempt = match self.rng.random_range(0..10u32) {
            0..=1 => Some(format!("att{}", self.rng.random_range(0..6u32))),
            2 => self.qs[qi].attempts.keys().next().cloned(),
            _ => None,
        };
        if let Some(a) = &attempt {
            p["ReceiveRequestAttemptId"] = json!(a);
        }
        let r = self.call("ReceiveMessage", p.clone());
        let fifo = self.qs[qi].fifo;
        let q = &mut self.qs[qi];
        let cached = match (&attempt, fifo) {
            (Some(a), true) => q.attempts.get(a).filter(|c| c.expires_at > now),
            _ => None,
        };
        if let Some(c) = cached {
            let retryable = c.deliveries.iter().all(|(id, handle)| {
                q.by_id(id).is_some_and(|m| {
                    m.handle.as_deref() == Some(handle)
                        && !m.vis_changed
                        && m.state(now) != St::Delayed
                })
            });
            if !retryable {
                ensure!(
                    code(&r) == "InvalidParameterValueException",
                    "stale attempt {attempt:?} answered {r:?}"
                );
                bump!(self, "receive: attempt no longer retryable");
                return Ok(());
            }
            let got: Vec<(String, String)> = r
                .map_err(|e| format!("attempt replay failed: {e:?}"))?["Messages"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|m| (s(&m["MessageId"]), s(&m["ReceiptHandle"])))
                        .collect()
                })
                .unwrap_or_default();
            ensure!(
                got == c.deliveries,
                "attempt replay returned {got:?}, first answer was {:?}",
                c.deliveries
            );
            let deliveries = c.deliveries.clone();
            bump!(self, "receive: attempt replayed");
            let rid = c.receive_id;
            for (id, _) in deliveries {
                if let Some(m) = q.by_id_mut(&id) {
                    m.visible_at = now + vis_ms;
                    m.receive_id = rid;
                }
            }
            return Ok(());
        }
        let out = r.map_err(|e| format!("ReceiveMessage {p} failed: {e:?}"))?;
        let got = out["Messages"].as_array().cloned().unwrap_or_default();
        let expected = if fifo {
            q.groups()
                .values()
                .map(|g| g.iter().take_while(|m| m.state(now) == St::Stored).count())
                .sum::<usize>()
                .min(max)
        } else {
            let stored = q.msgs.values().filter(|m| m.state(now) == St::Stored);
            stored.count().min(max)
        };
        ensure!(
            got.len() == expected,
            "receive(max {max}) returned {} messages, {expected} were receivable",
            got.len()
        );
        self.next_receive += 1;
        let rid = self.next_receive;
        bump!(self, format!("receive: {} message(s)", got.len().min(2)));
        if vis_ms == 0 && !got.is_empty() {
            bump!(self, "receive: visibility 0");
        }
        let mut seen = HashSet::new();
        let mut per_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut deliveries = Vec::new();
        for g in &got {
            let id = s(&g["MessageId"]);
            let handle = s(&g["ReceiptHandle"]);
            ensure!(
                seen.insert(id.clone()),
                "{id} delivered twice in one receive"
            );
            ensure!(!q.deleted.contains(&id), "deleted message {id} delivered");
            let m = q
                .by_id_mut(&id)
                .ok_or_else(|| format!("receive delivered unknown or removed message {id}"))?;
            let st = m.state(now);
            ensure!(
                st == St::Stored,
                "{id} delivered while {st:?} (delayed until {}, visible at {}, now {now})",
                m.delayed_until,
                m.visible_at
            );
            ensure!(
                g["Body"] == json!(m.body),
                "{id} body {} != {}",
                g["Body"],
                m.body
            );
            let count = s(&g["Attributes"]["ApproximateReceiveCount"]);
            ensure!(
                count == (m.receive_count + 1).to_string(),
                "{id} ApproximateReceiveCount {count}, expected {}",
                m.receive_count + 1
            );
            ensure!(m.handle.as_ref() != Some(&handle), "{id} handle reused");
            if m.receive_count > 0 {
                bump!(self, "receive: redelivery");
            }
            m.receive_count += 1;
            m.handle = Some(handle.clone());
            m.visible_at = now + vis_ms;
            m.received_at = now;
            m.vis_changed = false;
            m.receive_id = rid;
            if let Some(grp) = &m.group {
                ensure!(
                    g["Attributes"]["MessageGroupId"] == json!(grp),
                    "{id} group {}",
                    g["Attributes"]["MessageGroupId"]
                );
            }
            per_group
                .entry(m.group.clone().unwrap_or_default())
                .or_default()
                .push(id.clone());
            q.handles.push((handle.clone(), id.clone()));
            q.handle_ids.insert(handle.clone(), id.clone());
            deliveries.push((id, handle));
        }
        if q.handles.len() > HANDLE_POOL {
            q.handles.drain(..q.handles.len() - HANDLE_POOL);
        }
        if fifo {
            // A group's deliveries are the head of its live messages, in send order: nothing
            // earlier in the group was left behind (in flight, delayed or visible).
            let groups = q.groups();
            for (g, ids) in &per_group {
                let live: Vec<&String> = groups
                    .get(g)
                    .map(|v| v.iter().map(|m| &m.id).collect())
                    .unwrap_or_default();
                let head: Vec<&String> = live.iter().take(ids.len()).copied().collect();
                ensure!(
                    head == ids.iter().collect::<Vec<_>>(),
                    "group {g}: delivered {ids:?}, but the group's live messages are {live:?}"
                );
            }
            if let (Some(a), false) = (attempt, deliveries.is_empty()) {
                q.attempts.insert(
                    a,
                    Attempt {
                        expires_at: now + ATTEMPT_WINDOW_MS,
                        deliveries,
                        receive_id: rid,
                    },
                );
            }
        }
        Ok(())
    }

    /// A receipt handle to act on: mostly a current one, sometimes stale, foreign or garbage.
    pub(super) fn pick_handle(&mut self, qi: usize) -> Option<String> {
        let now = self.now;
        let roll = self.rng.random_range(0..100u32);
        if roll < 4 {
            return Some("garbage-handle".into());
        }
        if roll < 8 {
            let other = (qi + 1 + self.rng.random_range(0..self.qs.len() - 1)) % self.qs.len();
            let pool = &self.qs[other].handles;
            if !pool.is_empty() {
                return Some(pool[self.rng.random_range(0..pool.len())].0.clone());
            }
        }
        let q = &self.qs[qi];
        let current: Vec<&String> = q
            .msgs
            .values()
            .filter(|m| m.state(now) == St::InFlight)
            .filter_map(|m| m.handle.as_ref())
            .collect();
        if roll < 65 && !current.is_empty() {
            return Some(current[self.rng.random_range(0..current.len())].clone());
        }
        if q.handles.is_empty() {
            return None;
        }
        Some(
            q.handles[self.rng.random_range(0..q.handles.len())]
                .0
                .clone(),
        )
    }

    /// The model's verdict on a delete: expected error shape, or `None` for success.
    pub(super) fn delete_one(&mut self, qi: usize, handle: &str) -> Option<&'static str> {
        let now = self.now;
        let q = &mut self.qs[qi];
        let Some(id) = q.handle_ids.get(handle).cloned() else {
            return Some("ReceiptHandleIsInvalid");
        };
        // Already deleted, expired or purged: success, nothing to do.
        let m = q.by_id(&id)?;
        if q.fifo && !(m.state(now) == St::InFlight && m.handle.as_deref() == Some(handle)) {
            return Some("InvalidParameterValueException");
        }
        q.remove(&id);
        q.deleted.insert(id);
        None
    }

    pub(super) fn delete(&mut self, qi: usize, batch: bool) -> Check {
        let n = if batch {
            self.rng.random_range(1..=10)
        } else {
            1
        };
        let handles: Vec<String> = (0..n).filter_map(|_| self.pick_handle(qi)).collect();
        if handles.is_empty() {
            return Ok(());
        }
        let url = self.qs[qi].url.clone();
        if !batch {
            let r = self.call(
                "DeleteMessage",
                json!({"QueueUrl": url, "ReceiptHandle": handles[0]}),
            );
            let want = self.delete_one(qi, &handles[0]).unwrap_or("ok");
            bump!(self, format!("delete: {want}"));
            ensure!(
                code(&r) == want,
                "DeleteMessage answered {r:?}, expected {want}"
            );
            return Ok(());
        }
        let entries: Vec<Value> = handles
            .iter()
            .enumerate()
            .map(|(i, h)| json!({"Id": format!("d{i}"), "ReceiptHandle": h}))
            .collect();
        let params = json!({"QueueUrl": url, "Entries": entries});
        let out = self
            .call("DeleteMessageBatch", params)
            .map_err(|e| format!("DeleteMessageBatch failed: {e:?}"))?;
        let mut want_failed = BTreeSet::new();
        for (i, h) in handles.iter().enumerate() {
            let verdict = self.delete_one(qi, h);
            bump!(self, format!("delete (batch): {}", verdict.unwrap_or("ok")));
            if verdict.is_some() {
                want_failed.insert(format!("d{i}"));
            }
        }
        let failed: BTreeSet<String> = out["Failed"]
            .as_array()
            .map(|f| f.iter().map(|e| s(&e["Id"])).collect())
            .unwrap_or_default();
        ensure!(
            failed == want_failed,
            "DeleteMessageBatch failed {failed:?}, expected {want_failed:?}"
        );
        Ok(())
    }

    /// The model's verdict on a visibility change (and its effect when it succeeds).
    pub(super) fn change_one(
        &mut self,
        qi: usize,
        handle: &str,
        timeout: u64,
    ) -> Option<&'static str> {
        let now = self.now;
        let q = &mut self.qs[qi];
        let Some(id) = q.handle_ids.get(handle).cloned() else {
            return Some("ReceiptHandleIsInvalid");
        };
        let fifo = q.fifo;
        let Some(m) = q.by_id_mut(&id) else {
            return Some("InvalidParameterValueException");
        };
        let in_flight = m.state(now) == St::InFlight;
        let current = m.handle.as_deref() == Some(handle);
        if fifo && !(in_flight && current) {
            return Some("InvalidParameterValueException");
        }
        if !in_flight {
            // Standard: the handle's window ran out; AWS answers 200 and the message stays
            // visible (spec §7.3), whichever delivery the handle came from.
            if current || m.receive_count > 0 {
                bump!(self, "visibility change: expired handle, no-op");
            }
            return None;
        }
        if timeout > 0 && now - m.received_at + timeout * 1000 >= VISIBILITY_CAP_MS {
            return Some("InvalidParameterValueException");
        }
        m.vis_changed = true;
        m.visible_at = now + timeout * 1000;
        if let Some(g) = m.group.clone() {
            q.tainted.insert(g);
        }
        None
    }

    pub(super) fn change_visibility(&mut self, qi: usize, batch: bool) -> Check {
        let n = if batch {
            self.rng.random_range(1..=10)
        } else {
            1
        };
        let mut entries = Vec::new();
        for _ in 0..n {
            let Some(h) = self.pick_handle(qi) else {
                continue;
            };
            let t = match self.rng.random_range(0..20u32) {
                0..=4 => 0,
                5..=14 => self.rng.random_range(1..20u64),
                15..=17 => self.rng.random_range(20..120u64),
                _ => self.rng.random_range(43_000..=43_200u64),
            };
            entries.push((h, t));
        }
        if entries.is_empty() {
            return Ok(());
        }
        let url = self.qs[qi].url.clone();
        if !batch {
            let (h, t) = entries[0].clone();
            let r = self.call(
                "ChangeMessageVisibility",
                json!({"QueueUrl": url, "ReceiptHandle": h, "VisibilityTimeout": t}),
            );
            let want = self.change_one(qi, &h, t).unwrap_or("ok");
            bump!(self, format!("visibility change: {want}"));
            ensure!(
                code(&r) == want,
                "ChangeMessageVisibility({t}) answered {r:?}, expected {want}"
            );
            return Ok(());
        }
        let list: Vec<Value> = entries
            .iter()
            .enumerate()
            .map(|(i, (h, t))| json!({"Id": format!("v{i}"), "ReceiptHandle": h, "VisibilityTimeout": t}))
            .collect();
        let out = self
            .call(
                "ChangeMessageVisibilityBatch",
                json!({"QueueUrl": url, "Entries": list}),
            )
            .map_err(|e| format!("ChangeMessageVisibilityBatch failed: {e:?}"))?;
        let mut want_failed = BTreeSet::new();
        for (i, (h, t)) in entries.iter().enumerate() {
            let verdict = self.change_one(qi, h, *t);
            bump!(
                self,
                format!("visibility change (batch): {}", verdict.unwrap_or("ok"))
            );
            if verdict.is_some() {
                want_failed.insert(format!("v{i}"));
            }
        }
        let failed: BTreeSet<String> = out["Failed"]
            .as_array()
            .map(|f| f.iter().map(|e| s(&e["Id"])).collect())
            .unwrap_or_default();
        ensure!(
            failed == want_failed,
            "ChangeMessageVisibilityBatch failed {failed:?}, expected {want_failed:?}"
        );
        Ok(())
    }

    pub(super) fn purge(&mut self, qi: usize) -> Check {
        let now = self.now;
        let url = self.qs[qi].url.clone();
        let r = self.call("PurgeQueue", json!({"QueueUrl": url}));
        let q = &mut self.qs[qi];
        if q.last_purge.is_some_and(|t| now < t + PURGE_WAIT_MS) {
            ensure!(
                code(&r) == "PurgeQueueInProgress",
                "second purge answered {r:?}"
            );
            bump!(self, "purge: refused within 60 s");
            return Ok(());
        }
        ensure!(r.is_ok(), "PurgeQueue answered {r:?}");
        q.last_purge = Some(now);
        bump!(self, "purge");
        q.msgs.clear();
        q.order_of.clear();
        q.dedup.clear();
        // Cached attempt ids stay: their messages are gone, so a retry is refused (spec §8.5).
        Ok(())
    }
}
