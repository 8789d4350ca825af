//! The bridge's accept loop: HTTP/1.1 connections with bounds a slow or
//! greedy client cannot stretch.
//!
//! - At most [`MAX_CONNECTIONS`] open at once; past that a connection gets a
//!   JSON 503 and is closed at once, so file descriptors never run out.
//! - A request head must arrive within [`HEADER_TIMEOUT`] (hyper closes the
//!   connection otherwise), and a request body may not stall for longer than
//!   [`BODY_STALL`] between two reads (the request fails with a JSON 408).
//!
//! Each connection's I/O goes through [`fallback::JsonErrorIo`], so hyper's
//! own error answers are JSON too.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::error::ApiError;
use crate::fallback::JsonErrorIo;

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 1024;
/// How long a client may take to send a request's head.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request body may go without sending anything.
pub const BODY_STALL: Duration = Duration::from_secs(10);
/// How long open connections get to finish after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `stop` completes.
pub async fn serve_until(
    listener: TcpListener,
    app: Router,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                // Out of descriptors or a connection reset before accept:
                // wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tokio::spawn(refuse_busy(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |req: Request<Incoming>| {
            let stalled = Arc::new(AtomicBool::new(false));
            let req = req.map(|body| Body::new(StallLimit::new(body, BODY_STALL, stalled.clone())));
            let app = app.clone();
            async move {
                let resp = app.oneshot(req).await;
                // Whatever the extractor made of the failed read, say what happened.
                if stalled.load(Ordering::Relaxed) {
                    return Ok(stalled_answer());
                }
                resp
            }
        });
        let conn = http.serve_connection(TokioIo::new(JsonErrorIo::new(stream)), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(DRAIN, graceful.shutdown()).await;
    Ok(())
}

/// Answers a connection past the limit and closes it.
async fn refuse_busy(mut stream: TcpStream) {
    let body = serde_json::json!({
        "error": "Service Unavailable",
        "detail": format!("the server has {MAX_CONNECTIONS} connections open; retry shortly"),
    })
    .to_string();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

/// A request body that fails when it sends nothing for `limit`, and says so
/// in `stalled`.
struct StallLimit<B> {
    inner: B,
    limit: Duration,
    stalled: Arc<AtomicBool>,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<B> StallLimit<B> {
    fn new(inner: B, limit: Duration, stalled: Arc<AtomicBool>) -> Self {
        StallLimit {
            inner,
            limit,
            stalled,
            timer: None,
        }
    }
}

impl<B> http_body::Body for StallLimit<B>
where
    B: http_body::Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.timer = None;
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                let limit = this.limit;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.stalled.store(true, Ordering::Relaxed);
                        Poll::Ready(Some(Err("the request body stalled".into())))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The answer to a request whose body stalled.
fn stalled_answer() -> Response {
    ApiError::new(StatusCode::REQUEST_TIMEOUT, "Request Timeout")
        .detail(format!(
            "the request body sent nothing for {} s; send it whole",
            BODY_STALL.as_secs()
        ))
        .into_response()
}
