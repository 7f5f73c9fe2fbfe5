//! The page at `/`: one HTML file, its script and its style sheet, all in
//! `web/` and compiled into the binary, served from fixed routes (never a
//! path looked up on disk). The page fetches nothing but this server's
//! API, so it works offline; its content security policy says so too.

use std::sync::Arc;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use super::Server;

const INDEX: &str = include_str!("../../web/index.html");
const SCRIPT: &str = include_str!("../../web/app.js");
const STYLE: &str = include_str!("../../web/style.css");

/// Scripts, styles and images from this server only, requests to it only.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The routes of the page and its two files.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", INDEX)))
        .route(
            "/app.js",
            get(|| asset("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route(
            "/style.css",
            get(|| asset("text/css; charset=utf-8", STYLE)),
        )
}

async fn asset(kind: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}
