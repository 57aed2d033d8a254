//! Realism mode: the failures real SQS produces and emulators hide, on demand and reproducible.
//!
//! Off by default, so plain use stays exact and predictable. Every effect is drawn from the
//! engine's seed (a keyed hash of a counter, like the ids), so a test that found a bug finds it
//! again on every run with the same seed and the same calls.

use crate::json_text::{push_u64, value_text, Obj};
use serde::{Deserialize, Serialize};
use siphasher::sip::SipHasher13;
use std::hash::Hasher;

/// Which realistic misbehaviours the engine produces. Every knob is independent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Realism {
    /// Probability that a message delivered from a standard queue stays receivable once more,
    /// as a second copy with its own receipt handle (at-least-once delivery). Never on FIFO.
    pub duplicate_delivery: f64,
    /// Standard queues return visible messages in a shuffled order rather than oldest first.
    pub reorder: bool,
    /// Fraction of the visible messages a short poll (WaitTimeSeconds 0) sees: it may return
    /// fewer than asked, or none while messages exist. Long polls see everything. 0 or 1: off.
    pub short_poll_sampling: f64,
    /// SQS's request quotas, enforced with its throttling error. `None`: unlimited.
    pub throttling: Option<Throttling>,
    /// Extra latency per call, `[min, max]` milliseconds; applied by the host on its clock.
    pub latency: Option<(u32, u32)>,
}

/// Request quotas (spec §8.6, §12), counted per second on the engine's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Throttling {
    /// FIFO queues: API calls per second per action per partition (SQS: 300; a batch of 10
    /// counts as one call, hence 3,000 messages/s).
    pub fifo_per_action: u32,
    /// High-throughput FIFO queues: calls per second per action per partition.
    pub high_throughput_per_partition: u32,
    /// High-throughput FIFO queues: how many partitions message groups hash onto.
    pub high_throughput_partitions: u32,
    /// Standard queues: calls per second per action (`None`: unlimited, as SQS's "nearly
    /// unlimited").
    pub standard_per_action: Option<u32>,
}

impl Default for Throttling {
    fn default() -> Self {
        Throttling {
            fifo_per_action: 300,
            high_throughput_per_partition: 3_000,
            high_throughput_partitions: 8,
            standard_per_action: None,
        }
    }
}

impl Realism {
    /// What real SQS does by default: rare duplicates, best-effort order, sampled short polls,
    /// quotas, and a little latency.
    pub fn aws() -> Self {
        Realism {
            duplicate_delivery: 0.01,
            reorder: true,
            short_poll_sampling: 0.5,
            throttling: Some(Throttling::default()),
            latency: Some((5, 30)),
        }
    }

    /// The settings as JSON text (the package's `realismFor` / `realismPreset`): members in
    /// byte order of their names, as the `Value` they were built as printed them, written
    /// through the crate's writer.
    pub fn to_json(&self) -> String {
        let r = self;
        // A number as serde_json prints it (a non-finite one as `null`, as `json!` made it).
        let number = |f: f64| value_text(&serde_json::Value::from(f));
        let mut out = String::new();
        let mut o = Obj::new(&mut out);
        o.raw("duplicateDelivery", &number(r.duplicate_delivery));
        match r.latency {
            Some((min, max)) => {
                let l = o.member("latency");
                l.push('[');
                push_u64(l, u64::from(min));
                l.push(',');
                push_u64(l, u64::from(max));
                l.push(']');
            }
            None => {
                o.raw("latency", "null");
            }
        }
        o.bool("reorder", r.reorder)
            .raw("shortPollSampling", &number(r.short_poll_sampling));
        match &r.throttling {
            Some(t) => {
                Obj::new(o.member("throttling"))
                    .u64("fifoPerAction", u64::from(t.fifo_per_action))
                    .u64(
                        "highThroughputPartitions",
                        u64::from(t.high_throughput_partitions),
                    )
                    .u64(
                        "highThroughputPerPartition",
                        u64::from(t.high_throughput_per_partition),
                    )
                    .nullable_u64("standardPerAction", t.standard_per_action.map(u64::from))
                    .end();
            }
            None => {
                o.raw("throttling", "null");
            }
        }
        o.end();
        out
    }

    /// Does any engine-side knob do something?
    pub fn is_active(&self) -> bool {
        self.duplicate_delivery > 0.0
            || self.reorder
            || (self.short_poll_sampling > 0.0 && self.short_poll_sampling < 1.0)
            || self.throttling.is_some()
    }
}

/// Seeded draws for realism effects.
#[derive(Debug, Clone)]
pub(crate) struct Dice {
    key: (u64, u64),
    counter: u64,
}

impl Dice {
    pub(crate) fn new(seed: u64) -> Self {
        Dice {
            key: (seed ^ 0x7265_616c_6973_6d21, seed.rotate_left(17)),
            counter: 0,
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.counter += 1;
        let mut h = SipHasher13::new_with_keys(self.key.0, self.key.1);
        h.write_u64(self.counter);
        h.finish()
    }

    /// A uniform draw in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// A uniform index in [0, n).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }
}

/// A stable partition for a message group (FNV-1a, so every host computes the same one).
pub fn group_partition(group: &str, partitions: u32) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in group.as_bytes() {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h % partitions.max(1)
}

#[cfg(test)]
mod tests {
    /// `to_json` against the `json!` tree it replaced, printed.
    #[test]
    fn to_json_is_the_value_it_replaced() {
        let old = |r: &Realism| {
            serde_json::json!({
                "duplicateDelivery": r.duplicate_delivery,
                "reorder": r.reorder,
                "shortPollSampling": r.short_poll_sampling,
                "throttling": r.throttling.as_ref().map(|t| serde_json::json!({
                    "fifoPerAction": t.fifo_per_action,
                    "highThroughputPerPartition": t.high_throughput_per_partition,
                    "highThroughputPartitions": t.high_throughput_partitions,
                    "standardPerAction": t.standard_per_action,
                })),
                "latency": r.latency.map(|(min, max)| [min, max]),
            })
            .to_string()
        };
        let odd = Realism {
            duplicate_delivery: f64::NAN,
            reorder: false,
            short_poll_sampling: 1e-7,
            throttling: Some(Throttling {
                standard_per_action: Some(u32::MAX),
                ..Throttling::default()
            }),
            latency: Some((0, u32::MAX)),
        };
        let third = Realism {
            duplicate_delivery: 1.0,
            short_poll_sampling: f64::INFINITY,
            ..Realism::default()
        };
        for r in [Realism::default(), Realism::aws(), odd, third] {
            assert_eq!(r.to_json(), old(&r));
        }
    }

    use super::*;

    #[test]
    fn dice_are_reproducible_and_roughly_uniform() {
        let mut a = Dice::new(7);
        let mut b = Dice::new(7);
        let xs: Vec<f64> = (0..1000).map(|_| a.unit()).collect();
        let ys: Vec<f64> = (0..1000).map(|_| b.unit()).collect();
        assert_eq!(xs, ys);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((0.45..0.55).contains(&mean), "{mean}");
        assert_ne!(Dice::new(8).unit(), Dice::new(7).unit());
    }

    #[test]
    fn partitions_are_stable() {
        assert_eq!(group_partition("g1", 8), group_partition("g1", 8));
        assert!(group_partition("anything", 4) < 4);
    }
}
