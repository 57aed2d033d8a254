//! Queue attributes: names, ranges, defaults and how each one is rendered (spec §3).

use crate::error::{invalid_attribute_value, unknown_attribute, SqsError};
use serde::{Deserialize, Serialize};

/// Every attribute name GetQueueAttributes knows, in the order `All` lists them.
pub(crate) const ALL_NAMES: &[&str] = &[
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
    "ContentBasedDeduplication",
    "CreatedTimestamp",
    "DeduplicationScope",
    "DelaySeconds",
    "FifoQueue",
    "FifoThroughputLimit",
    "KmsDataKeyReusePeriodSeconds",
    "KmsMasterKeyId",
    "LastModifiedTimestamp",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "Policy",
    "QueueArn",
    "ReceiveMessageWaitTimeSeconds",
    "RedriveAllowPolicy",
    "RedrivePolicy",
    "SqsManagedSseEnabled",
    "VisibilityTimeout",
];

/// Attributes that only GetQueueAttributes may name.
pub(crate) const READ_ONLY: &[&str] = &[
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "QueueArn",
];

/// The attributes CreateQueue and SetQueueAttributes accept: every name but the read-only ones.
pub fn settable_attributes() -> impl Iterator<Item = &'static str> {
    ALL_NAMES.iter().copied().filter(|n| !READ_ONLY.contains(n))
}

const FIFO_ONLY: &[&str] = &[
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
];

/// A queue's dead-letter configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RedrivePolicy {
    pub(crate) dead_letter_target_arn: String,
    pub(crate) max_receive_count: u32,
}

impl RedrivePolicy {
    fn render(&self) -> String {
        let mut out = String::new();
        crate::json_text::Obj::new(&mut out)
            .str("deadLetterTargetArn", &self.dead_letter_target_arn)
            .u64("maxReceiveCount", u64::from(self.max_receive_count))
            .end();
        out
    }

    /// Parse the JSON string form. `maxReceiveCount` may be a number or a numeric string.
    pub(crate) fn parse(raw: &str) -> Result<Self, SqsError> {
        let bad = |reason: &str| {
            SqsError::InvalidParameterValue(format!(
                "Value {raw} for parameter RedrivePolicy is invalid. Reason: {reason}"
            ))
        };
        let v: serde_json::Value = serde_json::from_str(raw)
            .map_err(|_| bad("Redrive policy is not a dict or valid json."))?;
        let obj = v
            .as_object()
            .ok_or_else(|| bad("Redrive policy is not a dict or valid json."))?;
        let arn = obj
            .get("deadLetterTargetArn")
            .and_then(|a| a.as_str())
            .ok_or_else(|| {
                bad("Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
            })?;
        let count = obj.get("maxReceiveCount").ok_or_else(|| {
            bad("Redrive policy does not contain mandatory attribute: maxReceiveCount.")
        })?;
        let count_text = match count {
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::String(s) => s.clone(),
            other => crate::json_text::value_text(other),
        };
        let n: i64 = count_text.trim().parse().map_err(|_| {
            bad(&format!(
                "Invalid value for maxReceiveCount: {count_text}, valid values are from 1 to 1000 both inclusive."
            ))
        })?;
        if !(1..=1000).contains(&n) {
            return Err(bad(&format!(
                "Invalid value for maxReceiveCount: {n}, valid values are from 1 to 1000 both inclusive."
            )));
        }
        Ok(RedrivePolicy {
            dead_letter_target_arn: arn.to_string(),
            max_receive_count: n as u32,
        })
    }
}

/// Which source queues may use a queue as their dead-letter queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RedriveAllowPolicy {
    pub(crate) permission: String,
    pub(crate) source_queue_arns: Vec<String>,
}

impl RedriveAllowPolicy {
    pub(crate) fn parse(raw: &str) -> Result<Self, SqsError> {
        let bad = |reason: &str| {
            SqsError::InvalidParameterValue(format!(
                "Value {raw} for parameter RedriveAllowPolicy is invalid. Reason: {reason}"
            ))
        };
        let v: serde_json::Value = serde_json::from_str(raw)
            .map_err(|_| bad("Redrive allow policy is not a dict or valid json."))?;
        let obj = v
            .as_object()
            .ok_or_else(|| bad("Redrive allow policy is not a dict or valid json."))?;
        let permission = obj
            .get("redrivePermission")
            .and_then(|p| p.as_str())
            .ok_or_else(|| {
                bad("Redrive allow policy does not contain mandatory attribute: redrivePermission.")
            })?;
        if !matches!(permission, "allowAll" | "denyAll" | "byQueue") {
            return Err(bad(&format!(
                "Invalid value for redrivePermission: {permission}, valid values are allowAll, denyAll and byQueue."
            )));
        }
        let arns: Vec<String> = match obj.get("sourceQueueArns") {
            None => Vec::new(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("sourceQueueArns must be a list of queue ARNs."))?,
            Some(_) => return Err(bad("sourceQueueArns must be a list of queue ARNs.")),
        };
        if permission == "byQueue" {
            if arns.is_empty() || arns.len() > 10 {
                return Err(bad(
                    "Between 1 and 10 sourceQueueArns are required when redrivePermission is byQueue.",
                ));
            }
        } else if !arns.is_empty() {
            return Err(bad(
                "sourceQueueArns can be specified only when redrivePermission is byQueue.",
            ));
        }
        Ok(RedriveAllowPolicy {
            permission: permission.to_string(),
            source_queue_arns: arns,
        })
    }

    fn render(&self) -> String {
        let mut out = String::new();
        let mut o = crate::json_text::Obj::new(&mut out);
        o.str("redrivePermission", &self.permission);
        if self.permission == "byQueue" {
            crate::json_text::str_list(o.member("sourceQueueArns"), &self.source_queue_arns);
        }
        o.end();
        out
    }

    /// May the queue with this ARN use the policy's queue as its dead-letter queue?
    pub(crate) fn allows(&self, source_arn: &str) -> bool {
        match self.permission.as_str() {
            "allowAll" => true,
            "denyAll" => false,
            _ => self.source_queue_arns.iter().any(|a| a == source_arn),
        }
    }
}

/// The settable attributes of one queue, with SQS's defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct QueueAttributes {
    pub(crate) fifo: bool,
    pub(crate) delay_seconds: u32,
    pub(crate) maximum_message_size: u32,
    pub(crate) message_retention_period: u32,
    pub(crate) receive_message_wait_time_seconds: u32,
    pub(crate) visibility_timeout: u32,
    pub(crate) policy: Option<String>,
    pub(crate) redrive_policy: Option<RedrivePolicy>,
    pub(crate) redrive_allow_policy: Option<RedriveAllowPolicy>,
    pub(crate) kms_master_key_id: Option<String>,
    pub(crate) kms_data_key_reuse_period_seconds: Option<u32>,
    pub(crate) sqs_managed_sse_enabled: bool,
    pub(crate) content_based_deduplication: bool,
    pub(crate) deduplication_scope: String,
    pub(crate) fifo_throughput_limit: String,
}

fn parse_int(name: &str, value: &str, min: u32, max: u32) -> Result<u32, SqsError> {
    // Not trimmed: AWS parses the attribute text as it came (a Java-style integer parse), so
    // " 30" or "30\n" is not a value of the attribute. Chosen, not recorded against AWS.
    value
        .parse::<i64>()
        .ok()
        .filter(|v| (min as i64..=max as i64).contains(v))
        .map(|v| v as u32)
        .ok_or_else(|| invalid_attribute_value(name))
}

/// Bytes in a queue policy ([DOC] quotas-policies.html, spec §4.18 / §12).
pub(crate) const MAX_POLICY_BYTES: usize = 8_192;

/// The policy size quota, for a policy set directly and for one AddPermission grows. The code
/// follows AddPermission's documented OverLimit for the policy quotas ([MODEL]); the text was not
/// recorded against AWS.
pub(crate) fn check_policy_size(policy: &str) -> Result<(), SqsError> {
    if policy.len() > MAX_POLICY_BYTES {
        return Err(SqsError::OverLimit(
            "Submitted policy is over max allowed size.".into(),
        ));
    }
    Ok(())
}

fn parse_bool(name: &str, value: &str) -> Result<bool, SqsError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid_attribute_value(name)),
    }
}

impl QueueAttributes {
    /// SQS's defaults for a new queue (spec §3.1, §3.3).
    pub(crate) fn new(fifo: bool) -> Self {
        QueueAttributes {
            fifo,
            delay_seconds: 0,
            maximum_message_size: 1_048_576,
            message_retention_period: 345_600,
            receive_message_wait_time_seconds: 0,
            visibility_timeout: 30,
            policy: None,
            redrive_policy: None,
            redrive_allow_policy: None,
            kms_master_key_id: None,
            kms_data_key_reuse_period_seconds: None,
            sqs_managed_sse_enabled: true,
            content_based_deduplication: false,
            deduplication_scope: "queue".into(),
            fifo_throughput_limit: "perQueue".into(),
        }
    }

    /// Is `name` an attribute that a caller may name in Create/SetQueueAttributes for this queue
    /// type? Errors carry SQS's exact texts.
    fn check_settable(&self, name: &str) -> Result<(), SqsError> {
        if READ_ONLY.contains(&name) || !ALL_NAMES.contains(&name) {
            return Err(unknown_attribute(name));
        }
        if !self.fifo && FIFO_ONLY.contains(&name) {
            return Err(match name {
                "DeduplicationScope" | "FifoThroughputLimit" => SqsError::InvalidAttributeName(
                    format!("You can specify the {name} only when FifoQueue is set to true."),
                ),
                _ => unknown_attribute(name),
            });
        }
        Ok(())
    }

    /// Apply a whole Create/SetQueueAttributes map. Validates everything first: on error nothing
    /// changes. Returns whether `RedrivePolicy` / `DelaySeconds` / retention were touched, for
    /// the caller's follow-up work.
    pub(crate) fn apply<'a, I>(&mut self, attrs: I) -> Result<Touched, SqsError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)> + Clone,
    {
        let mut next = self.clone();
        let mut touched = Touched::default();
        let mut kms_set = false;
        let mut sse_true = false;
        for (name, value) in attrs.clone() {
            next.check_settable(name)?;
            match name {
                "DelaySeconds" => {
                    next.delay_seconds = parse_int(name, value, 0, 900)?;
                    touched.delay = true;
                }
                "MaximumMessageSize" => {
                    next.maximum_message_size = parse_int(name, value, 1024, 1_048_576)?
                }
                "MessageRetentionPeriod" => {
                    next.message_retention_period = parse_int(name, value, 60, 1_209_600)?;
                    touched.retention = true;
                }
                "ReceiveMessageWaitTimeSeconds" => {
                    next.receive_message_wait_time_seconds = parse_int(name, value, 0, 20)?
                }
                "VisibilityTimeout" => next.visibility_timeout = parse_int(name, value, 0, 43_200)?,
                "Policy" => {
                    if value.is_empty() {
                        next.policy = None;
                    } else {
                        check_policy_size(value)?;
                        let v: serde_json::Value = serde_json::from_str(value)
                            .map_err(|_| invalid_attribute_value(name))?;
                        if !v.is_object() {
                            return Err(invalid_attribute_value(name));
                        }
                        next.policy = Some(value.to_string());
                    }
                }
                "RedrivePolicy" => {
                    next.redrive_policy = if value.is_empty() {
                        None
                    } else {
                        Some(RedrivePolicy::parse(value)?)
                    };
                    touched.redrive = true;
                }
                "RedriveAllowPolicy" => {
                    next.redrive_allow_policy = if value.is_empty() {
                        None
                    } else {
                        Some(RedriveAllowPolicy::parse(value)?)
                    };
                }
                "KmsMasterKeyId" => {
                    if value.is_empty() {
                        next.kms_master_key_id = None;
                        next.kms_data_key_reuse_period_seconds = None;
                    } else {
                        next.kms_master_key_id = Some(value.to_string());
                        kms_set = true;
                    }
                    // Recorded on AWS: touching KMS turns SQS-managed SSE off, and removing the
                    // key does not turn it back on (spec §3.1).
                    next.sqs_managed_sse_enabled = false;
                }
                "KmsDataKeyReusePeriodSeconds" => {
                    let v = parse_int(name, value, 60, 86_400)?;
                    next.kms_data_key_reuse_period_seconds = (v != 300).then_some(v);
                }
                "SqsManagedSseEnabled" => {
                    let v = parse_bool(name, value)?;
                    next.sqs_managed_sse_enabled = v;
                    sse_true |= v;
                }
                "FifoQueue" => {
                    if !parse_bool(name, value)? {
                        return Err(SqsError::InvalidAttributeValue(
                            "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported."
                                .into(),
                        ));
                    }
                }
                "ContentBasedDeduplication" => {
                    next.content_based_deduplication = parse_bool(name, value)?
                }
                "DeduplicationScope" => {
                    if !matches!(value, "queue" | "messageGroup") {
                        return Err(invalid_attribute_value(name));
                    }
                    next.deduplication_scope = value.to_string();
                }
                "FifoThroughputLimit" => {
                    if !matches!(value, "perQueue" | "perMessageGroupId") {
                        return Err(invalid_attribute_value(name));
                    }
                    next.fifo_throughput_limit = value.to_string();
                }
                _ => return Err(unknown_attribute(name)),
            }
        }
        if kms_set && sse_true {
            return Err(SqsError::InvalidAttributeName(
                "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE."
                    .into(),
            ));
        }
        if sse_true {
            // Turning SQS-managed SSE on replaces KMS encryption.
            next.kms_master_key_id = None;
            next.kms_data_key_reuse_period_seconds = None;
        }
        if next.fifo
            && next.fifo_throughput_limit == "perMessageGroupId"
            && next.deduplication_scope != "messageGroup"
        {
            // High-throughput mode needs message-group dedup scope ([MODEL]); AWS's exact text
            // for this combination was not recorded.
            return Err(SqsError::InvalidAttributeValue(
                "Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId is only valid when DeduplicationScope is messageGroup."
                    .into(),
            ));
        }
        *self = next;
        Ok(touched)
    }

    /// The rendered value of a settable attribute, or `None` when it is unset or does not apply
    /// to this queue type (SQS omits those).
    pub(crate) fn get(&self, name: &str) -> Option<String> {
        Some(match name {
            "DelaySeconds" => self.delay_seconds.to_string(),
            "MaximumMessageSize" => self.maximum_message_size.to_string(),
            "MessageRetentionPeriod" => self.message_retention_period.to_string(),
            "ReceiveMessageWaitTimeSeconds" => self.receive_message_wait_time_seconds.to_string(),
            "VisibilityTimeout" => self.visibility_timeout.to_string(),
            "Policy" => self.policy.clone()?,
            "RedrivePolicy" => self.redrive_policy.as_ref()?.render(),
            "RedriveAllowPolicy" => self.redrive_allow_policy.as_ref()?.render(),
            "KmsMasterKeyId" => self.kms_master_key_id.clone()?,
            "KmsDataKeyReusePeriodSeconds" => {
                self.kms_master_key_id.as_ref()?;
                self.kms_data_key_reuse_period_seconds
                    .unwrap_or(300)
                    .to_string()
            }
            "SqsManagedSseEnabled" => self.sqs_managed_sse_enabled.to_string(),
            "FifoQueue" if self.fifo => "true".into(),
            "ContentBasedDeduplication" if self.fifo => {
                self.content_based_deduplication.to_string()
            }
            "DeduplicationScope" if self.fifo => self.deduplication_scope.clone(),
            "FifoThroughputLimit" if self.fifo => self.fifo_throughput_limit.clone(),
            _ => return None,
        })
    }
}

/// What an `apply` changed that needs work beyond storing the value.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Touched {
    pub(crate) delay: bool,
    pub(crate) retention: bool,
    pub(crate) redrive: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_render_as_recorded_on_aws() {
        let a = QueueAttributes::new(false);
        assert_eq!(a.get("MaximumMessageSize").as_deref(), Some("1048576"));
        assert_eq!(a.get("MessageRetentionPeriod").as_deref(), Some("345600"));
        assert_eq!(a.get("SqsManagedSseEnabled").as_deref(), Some("true"));
        assert_eq!(a.get("FifoQueue"), None);
        assert_eq!(a.get("Policy"), None);
        let f = QueueAttributes::new(true);
        assert_eq!(f.get("DeduplicationScope").as_deref(), Some("queue"));
        assert_eq!(f.get("FifoThroughputLimit").as_deref(), Some("perQueue"));
    }

    #[test]
    fn a_bad_value_changes_nothing() {
        let mut a = QueueAttributes::new(false);
        let err = a
            .apply([("DelaySeconds", "5"), ("VisibilityTimeout", "43201")])
            .unwrap_err();
        assert_eq!(
            err,
            SqsError::InvalidAttributeValue(
                "Invalid value for the parameter VisibilityTimeout.".into()
            )
        );
        assert_eq!(a.delay_seconds, 0);
    }

    #[test]
    fn redrive_policy_accepts_string_counts_and_renders_numbers() {
        let p = RedrivePolicy::parse(r#"{"deadLetterTargetArn":"arn:x","maxReceiveCount":"3"}"#)
            .unwrap();
        assert_eq!(p.max_receive_count, 3);
        assert_eq!(
            p.render(),
            r#"{"deadLetterTargetArn":"arn:x","maxReceiveCount":3}"#
        );
        assert!(
            RedrivePolicy::parse(r#"{"deadLetterTargetArn":"arn:x","maxReceiveCount":0}"#).is_err()
        );
    }
}
