//! `GetIndex` as the router serves it: the full index's protobuf encoding is kept per
//! organisation with each entry's encoding (`app::index::EncodedIndex`, as REST keeps the
//! JSON), so an unchanged index is sent without converting or encoding 2,000 entries per
//! call. The answer is byte for byte what prost would encode for the typed
//! `GetIndexResponse` (a unit test holds it to that).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes};
use cairn_proto::v1 as pb;
use prost::Message as _;
use prost::encoding::{WireType, encode_key, encode_varint};
use tonic::codec::{BufferSettings, Codec, EncodeBuf, Encoder};
use tonic::server::{Grpc, UnaryService};
use tonic::{Request, Response, Status};

use super::convert;
use super::service::{caller, cursor, fail};
use crate::AppState;
use crate::app::index;

/// Field numbers of `GetIndexResponse`.
const CURSOR_FIELD: u32 = 1;
const SKILLS_FIELD: u32 = 2;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The route of `/cairn.v1.Registry/GetIndex`.
#[derive(Clone)]
pub struct GetIndexRoute {
    state: AppState,
}

impl GetIndexRoute {
    /// The route answering from `state`.
    pub fn new(state: AppState) -> Self {
        GetIndexRoute { state }
    }
}

impl tower::Service<axum::http::Request<axum::body::Body>> for GetIndexRoute {
    type Response = axum::http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: axum::http::Request<axum::body::Body>) -> Self::Future {
        let state = self.state.clone();
        Box::pin(async move {
            let mut grpc = Grpc::new(PreEncoded)
                .apply_max_message_size_config(Some(super::MAX_REQUEST_MESSAGE), Some(super::MAX_RESPONSE_MESSAGE));
            Ok(grpc.unary(Answer(state), request).await)
        })
    }
}

/// Answers one `GetIndex` call with the encoded response.
struct Answer(AppState);

impl UnaryService<pb::GetIndexRequest> for Answer {
    type Response = Bytes;
    type Future = BoxFuture<Result<Response<Bytes>, Status>>;

    fn call(&mut self, request: Request<pb::GetIndexRequest>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move {
            let caller = caller(&request)?;
            let since = cursor(request.into_inner().since)?;
            let org_id = caller.principal.org_id;
            let newest = index::current_cursor(&state, org_id, since).await.map_err(fail)?;
            let body = match since {
                None => {
                    let full = index::full(&state, org_id, newest).await.map_err(fail)?;
                    encode(&state, org_id, &full)?
                }
                Some(since) => {
                    let delta = index::delta(&state, org_id, since).await.map_err(fail)?;
                    Bytes::from(convert::index_delta(delta).encode_to_vec())
                }
            };
            Ok(Response::new(body))
        })
    }
}

/// The `GetIndexResponse` of `full`, from the per-entry cache.
fn encode(state: &AppState, org_id: i64, full: &index::FullIndex) -> Result<Bytes, Status> {
    state.index_proto.encode(
        org_id,
        full,
        |entry| Ok::<_, Status>(Bytes::from(convert::index_entry(entry).encode_to_vec())),
        assemble,
    )
}

/// Encodes `full` ahead of any call (the index keeper, `app::index::keep_warm`).
pub fn warm(state: &AppState, org_id: i64, full: &index::FullIndex) {
    if let Err(status) = encode(state, org_id, full) {
        tracing::warn!(%status, org_id, "encoding the index ahead of calls failed");
    }
}

/// A `GetIndexResponse` from its cursor and encoded entries (no `removed`: full index).
fn assemble(cursor: i64, entries: &[&Bytes]) -> Bytes {
    let size: usize = entries.iter().map(|e| e.len() + 6).sum::<usize>() + 11;
    let mut body = Vec::with_capacity(size);
    if cursor != 0 {
        prost::encoding::int64::encode(CURSOR_FIELD, &cursor, &mut body);
    }
    for entry in entries {
        encode_key(SKILLS_FIELD, WireType::LengthDelimited, &mut body);
        encode_varint(entry.len() as u64, &mut body);
        body.extend_from_slice(entry);
    }
    Bytes::from(body)
}

/// Sends already-encoded messages as they are; decodes requests with prost.
#[derive(Clone, Copy, Debug, Default)]
struct PreEncoded;

impl Codec for PreEncoded {
    type Encode = Bytes;
    type Decode = pb::GetIndexRequest;
    type Encoder = BytesEncoder;
    type Decoder = tonic_prost::ProstDecoder<pb::GetIndexRequest>;

    fn encoder(&mut self) -> BytesEncoder {
        BytesEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        tonic_prost::ProstDecoder::new(BufferSettings::default())
    }
}

/// Writes the bytes of an encoded message.
#[derive(Clone, Copy, Debug)]
struct BytesEncoder;

impl Encoder for BytesEncoder {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, files: usize) -> pb::IndexEntry {
        pb::IndexEntry {
            name: name.to_owned(),
            category: files.is_multiple_of(2).then(|| "devops".to_owned()),
            description: "d".repeat(200),
            revision: 3,
            digest: format!("sha256:{}", "a".repeat(64)),
            updated_at: Some(prost_types::Timestamp {
                seconds: 1_796_000_000,
                nanos: 5,
            }),
            files: (0..files)
                .map(|i| pb::FileEntry {
                    path: format!("references/{i}.md"),
                    sha256: "b".repeat(64),
                    size: 1 << 20,
                    executable: i == 0,
                })
                .collect(),
        }
    }

    #[test]
    fn the_assembled_answer_is_what_prost_encodes_for_the_typed_message() {
        for (cursor, count) in [(0, 0), (1, 1), (42, 3), (i64::MAX, 40)] {
            let entries: Vec<pb::IndexEntry> = (0..count).map(|i| entry(&format!("s{i}"), i)).collect();
            let encoded: Vec<Bytes> = entries.iter().map(|e| Bytes::from(e.encode_to_vec())).collect();
            let parts: Vec<&Bytes> = encoded.iter().collect();
            let typed = pb::GetIndexResponse {
                cursor,
                skills: entries,
                removed: Vec::new(),
            };
            assert_eq!(
                assemble(cursor, &parts),
                Bytes::from(typed.encode_to_vec()),
                "{cursor} {count}"
            );
        }
    }
}
