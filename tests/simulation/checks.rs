//! The invariants checked after every step, and the restore round trip.

use super::*;

impl Sim {
    /// Every invariant, for every queue, against peek and GetQueueAttributes.
    pub(super) fn check_all(&mut self) -> Check {
        let now = self.now;
        let mut model_deadline: Option<u64> = None;
        for qi in 0..self.qs.len() {
            let url = self.qs[qi].url.clone();
            let peek = self
                .svc
                .peek(now, &self.ctx, &url)
                .map_err(|e| format!("peek failed: {e:?}"))?;
            let attrs = self
                .call(
                    "GetQueueAttributes",
                    json!({"QueueUrl": url, "AttributeNames": ["All"]}),
                )
                .map_err(|e| format!("GetQueueAttributes failed: {e:?}"))?;
            let q = &mut self.qs[qi];
            let mut counts = HashMap::new();
            let mut listed = HashSet::new();
            for pm in peek["messages"].as_array().into_iter().flatten() {
                let id = s(&pm["messageId"]);
                let state = s(&pm["state"]);
                if !["delayed", "stored", "in-flight"].contains(&state.as_str()) {
                    ensure!(q.by_id(&id).is_none(), "{url}: live {id} listed as {state}");
                    continue;
                }
                ensure!(listed.insert(id.clone()), "{url}: peek lists {id} twice");
                ensure!(
                    !q.deleted.contains(&id),
                    "{url}: deleted {id} is back as {state}"
                );
                *counts.entry(state.clone()).or_insert(0u64) += 1;
                let m: Msg = q
                    .by_id(&id)
                    .ok_or_else(|| {
                        format!("{url}: peek lists {id} ({state}), the model has no such message")
                    })?
                    .clone();
                let want = m.state(now);
                ensure!(state == want.peek_name(), "{url}: {id} is {state}, expected {want:?} (now {now}, delayed until {}, visible at {})", m.delayed_until, m.visible_at);
                let rc = pm["receiveCount"].as_u64().unwrap_or(u64::MAX) as u32;
                ensure!(
                    rc == m.receive_count,
                    "{url}: {id} receiveCount {rc}, expected {}",
                    m.receive_count
                );
                let prev = q.max_count.entry(id.clone()).or_insert(0);
                ensure!(
                    rc >= *prev,
                    "{url}: {id} receive count went down {prev} -> {rc}"
                );
                *prev = rc;
                ensure!(pm["body"] == json!(m.body), "{url}: {id} body changed");
                match want {
                    St::InFlight => {
                        ensure!(
                            pm["visibleAt"] == json!(m.visible_at),
                            "{url}: {id} visibleAt {} != {}",
                            pm["visibleAt"],
                            m.visible_at
                        );
                        ensure!(
                            pm["receiptHandle"] == json!(m.handle),
                            "{url}: {id} handle differs"
                        );
                    }
                    St::Delayed => ensure!(
                        pm["delayedUntil"] == json!(m.delayed_until),
                        "{url}: {id} delayedUntil"
                    ),
                    St::Stored => {}
                }
            }
            ensure!(
                listed.len() == q.msgs.len(),
                "{url}: peek lists {} live messages, the model has {}",
                listed.len(),
                q.msgs.len()
            );
            let a = &attrs["Attributes"];
            for (name, state) in [
                ("ApproximateNumberOfMessages", "stored"),
                ("ApproximateNumberOfMessagesNotVisible", "in-flight"),
                ("ApproximateNumberOfMessagesDelayed", "delayed"),
            ] {
                let n = counts.get(state).copied().unwrap_or(0);
                ensure!(
                    s(&a[name]) == n.to_string(),
                    "{url}: {name} = {}, peek has {n} {state}",
                    a[name]
                );
            }
            if q.fifo {
                let in_flight: Vec<(String, Vec<u64>)> = q
                    .groups()
                    .into_iter()
                    .map(|(g, msgs)| {
                        let rids = msgs
                            .iter()
                            .filter(|m| m.state(now) == St::InFlight)
                            .map(|m| m.receive_id)
                            .collect();
                        (g, rids)
                    })
                    .collect();
                for (g, mut rids) in in_flight {
                    if rids.is_empty() {
                        q.tainted.remove(&g);
                        continue;
                    }
                    // A later receive can only have taken messages ahead of earlier ones (a
                    // visibility change released the head); never behind them.
                    ensure!(
                        rids.windows(2).all(|w| w[0] >= w[1]),
                        "{url}: group {g} in flight from receives {rids:?} in send order"
                    );
                    rids.dedup();
                    if rids.len() > 1 {
                        bump!(
                            self,
                            "fifo: group in flight from two receives (after a change)"
                        );
                    }
                    ensure!(
                        rids.len() == 1 || q.tainted.contains(&g),
                        "{url}: group {g} has deliveries in flight from receives {rids:?}"
                    );
                }
            }
            for m in q.msgs.values() {
                let d = match m.state(now) {
                    St::Delayed => m.delayed_until,
                    St::InFlight => m.visible_at,
                    St::Stored => u64::MAX,
                };
                let d = d.min(m.enqueued_at + q.retention_ms);
                model_deadline = Some(model_deadline.map_or(d, |x: u64| x.min(d)));
            }
        }
        let engine = self.svc.next_deadline();
        ensure!(
            engine == model_deadline,
            "next_deadline {engine:?}, model says {model_deadline:?}"
        );
        Ok(())
    }

    /// Rebuild a service from the stored records alone; it must show the same queues, then it
    /// takes over (so the rest of the run also exercises the restored state).
    pub(super) fn restore_check(&mut self) -> Check {
        self.sync();
        let mut restored = Service::restore(self.config.clone(), self.store.clone())
            .map_err(|e| format!("restore failed: {e}"))?;
        for q in &self.qs {
            let live = |mut v: Value| {
                if let Some(list) = v["messages"].as_array_mut() {
                    list.retain(|m| {
                        ["delayed", "stored", "in-flight"]
                            .contains(&m["state"].as_str().unwrap_or(""))
                    });
                }
                v
            };
            let a = self.svc.peek(self.now, &self.ctx, &q.url).map(live);
            let b = restored.peek(self.now, &self.ctx, &q.url).map(live);
            ensure!(
                a == b,
                "{}: restored peek differs:\n live:     {a:?}\n restored: {b:?}",
                q.url
            );
        }
        ensure!(
            restored.next_deadline() == self.svc.next_deadline(),
            "restored next_deadline differs"
        );
        restored.take_changes();
        self.svc = restored;
        bump!(self, "restore");
        Ok(())
    }
}
