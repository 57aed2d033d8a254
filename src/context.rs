//! What a host knows about a call that is not in its parameters.

/// Per-call facts the protocol layer (or a JS host) supplies alongside the SQS parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallContext {
    /// The region of the call (from the SigV4 credential scope). `None`: the service's default region.
    pub region: Option<String>,
    /// `host[:port]` the request was addressed to; queue URLs in responses are built from it.
    /// `None`: the service's configured default host.
    pub host: Option<String>,
    /// The `X-Amzn-Trace-Id` request header, stored as the `AWSTraceHeader` system attribute.
    pub trace_header: Option<String>,
    /// The caller's identity, returned as the `SenderId` system attribute. `None`: the account's
    /// default principal id.
    pub sender_id: Option<String>,
    /// The URL scheme for queue URLs built from `host` (`http` unless the host says otherwise).
    pub scheme: Option<String>,
}
