//! The HTTP API: one route a question, every answer one JSON object
//! (docs/json.md), every refusal `{"error": "..."}` with a status saying
//! whose fault it is.
//!
//! - `GET /api/v1/query?position=P&rules=std|ec&end=sweep|delayed|no-sweep`:
//!   the object `kalah query --json` prints for `P` (same fields, same
//!   values), its moves listed best first. Inside the tables it is answered
//!   on the request's own thread; outside, by a search on the pool
//!   ([`super::searches`]).
//! - `GET /api/v1/solve?pits=M&seeds=N&rules=&end=`: the same object for
//!   the start of Kalah(M,N).
//! - `GET /api/v1/play?position=P&house=H&rules=&end=`: the position after
//!   the side to move plays house `H`; the page plays through this, so the
//!   rules live in the engine alone.
//! - `GET /api/v1/analyze?position=P&line=L&idu=0|1&rules=&end=`: the
//!   object `kalah analyze --from P L --json` prints (the service's
//!   review), each position answered as `/api/v1/query` answers it; when a
//!   search gets no answer within the budget, the moves before it are
//!   reviewed and `stopped` says why the rest is not.
//!
//! Status: 400 for bad input, with the message the command line gives for
//! the same position; 503 when the search budget runs out or every search
//! worker is busy (with `Retry-After`), the reason in `error`; 500 for
//! tables that contradict themselves; 404 for any other path; 405 for any
//! method but GET and HEAD; 413 for a request with a body.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{RawQuery, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use kalah_solver::{CaptureRule, EndRule, Game, GameSize, Position, Rules};
use serde::Serialize;

use super::catalog::Entry;
use super::searches::Refusal;
use super::{page, Server};
// The command line's own parser of a position argument: a bad position
// gets the same message here as there, by construction.
use crate::service::answer::{write_json, Answer, Detail};
use crate::service::position::without_search;
use crate::service::review::{review, ReviewError};
use kalah_solver::{Line, Numbering};

/// Every route of the server: the API, the page, and the refusals.
pub fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/api/v1/query", get(query))
        .route("/api/v1/solve", get(solve))
        .route("/api/v1/play", get(play))
        .route("/api/v1/analyze", get(analyze))
        .merge(page::routes())
        .fallback(not_found)
        .layer(middleware::from_fn(no_body))
        .with_state(server)
}

/// `GET /api/v1/query`.
async fn query(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    let request = Params::parse(raw.as_deref(), &["position", "rules", "end"]).and_then(|p| {
        let pos = p.position()?;
        Ok((pos, p.rules()?))
    });
    match request {
        Ok((pos, rules)) => answer(&server, pos, rules).await,
        Err(msg) => error(StatusCode::BAD_REQUEST, &msg),
    }
}

/// `GET /api/v1/solve`.
async fn solve(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    let request = Params::parse(raw.as_deref(), &["pits", "seeds", "rules", "end"]).and_then(|p| {
        // The solver's one check of a game's size, the command line's:
        // the same sizes refused with the same message, nothing wrapped.
        let pits = p.required("pits", "houses a side")?;
        let seeds = p.required("seeds", "seeds a house")?;
        let size = GameSize::parse(pits, seeds).map_err(|e| e.to_string())?;
        Ok((size.start(), p.rules()?))
    });
    match request {
        Ok((pos, rules)) => answer(&server, pos, rules).await,
        Err(msg) => error(StatusCode::BAD_REQUEST, &msg),
    }
}

/// What `/api/v1/play` answers.
#[derive(Serialize)]
struct Played {
    /// The position after the move.
    position: String,
    /// Who moves next (`S` or `N`).
    to_move: String,
    /// The house played (of the side that moved).
    house: usize,
    extra_turn: bool,
    /// Seeds captured, the capturing seed included.
    captured: u8,
    game_over: bool,
}

/// `GET /api/v1/play`.
async fn play(RawQuery(raw): RawQuery) -> Response {
    let played =
        Params::parse(raw.as_deref(), &["position", "house", "rules", "end"]).and_then(|p| {
            let mut pos = p.position()?;
            let house = p.number("house", "a house number")?;
            let game = Game::new(pos.pits(), p.rules()?);
            let did = pos
                .play(&game, house)
                .map_err(|e| format!("cannot play house {house} in {}: {e}", p.text("position")))?;
            Ok(Played {
                position: pos.to_string(),
                to_move: pos.to_move().letter().to_string(),
                house,
                extra_turn: did.extra_turn,
                captured: did.captured,
                game_over: did.game_over,
            })
        });
    match played {
        Ok(p) => {
            let mut out = Vec::with_capacity(128);
            write_json(&mut out, &p);
            json(StatusCode::OK, out)
        }
        Err(msg) => error(StatusCode::BAD_REQUEST, &msg),
    }
}

/// `GET /api/v1/analyze`: a line reviewed from `position`. The positions
/// before its sowings are answered one after another as `/api/v1/query`
/// answers them (the tables here, a search on the pool otherwise); at the
/// first one with no answer (the budget, busy workers) the review stops
/// there: the sowings before it are reviewed and `stopped` names the move
/// and the reason (a refusal at the first sowing is the refusal itself).
async fn analyze(State(server): State<Arc<Server>>, RawQuery(raw): RawQuery) -> Response {
    let started = std::time::Instant::now();
    let request = Params::parse(raw.as_deref(), &["position", "line", "idu", "rules", "end"])
        .and_then(|p| {
            let start = p.position()?;
            let rules = p.rules()?;
            let text = p.required("line", "the game's moves, e.g. 3.6-2-5")?;
            let numbering = match p.get("idu").unwrap_or("0") {
                "0" | "false" => Numbering::FromOne,
                "1" | "true" => Numbering::FromZero,
                other => return Err(format!("idu '{other}': expected 0 or 1")),
            };
            let line = Line::parse(text, numbering)
                .map_err(|e| format!("invalid line \"{text}\": {e}"))?;
            let game = Game::new(start.pits(), rules);
            line.replay(&game, start)
                .map_err(|e| format!("line \"{text}\": {e}"))?;
            Ok((start, rules, line, game))
        });
    let (start, rules, line, game) = match request {
        Ok(r) => r,
        Err(msg) => return error(StatusCode::BAD_REQUEST, &msg),
    };
    let entry = server.catalog.get(start.pits(), rules);
    let tables = entry.tables.as_deref();
    let book = entry.books.get(start.total_seeds());
    // Every position before a sowing, answered in order until one is not.
    let mut answers: Vec<Answer> = Vec::new();
    let mut stopped = None;
    let mut pos = start;
    'line: for (t, turn) in line.turns.iter().enumerate() {
        for &house in turn {
            let answer = match known_or_searched(&server, entry, &game, pos).await {
                Ok(a) => a,
                Err(Unanswered::Refused(refusal)) if answers.is_empty() => {
                    return refused(&refusal)
                }
                Err(Unanswered::Refused(refusal)) => {
                    stopped = Some(format!(
                        "no value for turn {} (house {house}, position {pos}): {}",
                        t + 1,
                        refusal.reason()
                    ));
                    break 'line;
                }
                Err(Unanswered::Failed(e)) => {
                    return error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string())
                }
            };
            answers.push(answer);
            if pos.play(&game, house).is_err() {
                // Replayed above: not reached.
                break 'line;
            }
        }
    }
    // The line up to the sowings answered.
    let mut reviewed = Line::default();
    let mut left = answers.len();
    for turn in &line.turns {
        if left == 0 {
            break;
        }
        let take = turn.len().min(left);
        reviewed.turns.push(turn[..take].to_vec());
        left -= take;
    }
    let mut given = answers.into_iter();
    let result = review(&game, start, &reviewed, |_| {
        given.next().ok_or_else(|| {
            crate::service::Error::Failure("the review asked for more answers".to_string())
        })
    });
    let r = match result {
        Ok(r) => r,
        Err(ReviewError::Line(e)) => return error(StatusCode::BAD_REQUEST, &e.to_string()),
        Err(ReviewError::Answer(e)) => {
            return error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string())
        }
    };
    // The end's value when the tables (or the end of the game) give it.
    let end_value = without_search(&game, tables, book, &r.end, Detail::FULL)
        .ok()
        .flatten()
        .map(|a| a.value);
    let mut j = r.json(
        &game,
        &entry.slug,
        end_value,
        started.elapsed().as_secs_f64(),
    );
    j.stopped = stopped;
    let mut out = Vec::with_capacity(256 + 256 * j.moves.len());
    write_json(&mut out, &j);
    json(StatusCode::OK, out)
}

/// Why a position got no answer: a search refused it (busy workers, its
/// budget, the server stopping), or the tables failed.
enum Unanswered {
    Refused(Refusal),
    Failed(crate::service::Error),
}

/// The answer for `pos`: the end of the game, the tables, the book or the
/// answers kept, on the request's thread (the service's `without_search`,
/// then the kept values), else a search on the pool, whose answer is kept;
/// only the search leaves this thread.
async fn known_or_searched(
    server: &Server,
    entry: &Entry,
    game: &Game,
    pos: Position,
) -> Result<Answer, Unanswered> {
    let tables = entry.tables.as_deref();
    let book = entry.books.get(pos.total_seeds());
    if let Some(a) =
        without_search(game, tables, book, &pos, Detail::FULL).map_err(Unanswered::Failed)?
    {
        return Ok(a);
    }
    if let Some(a) = server.kept.answer(game, tables, book, &pos) {
        return Ok(a);
    }
    let a = server
        .searches
        .search(game.clone(), entry.tables.clone(), pos)
        .await
        .map_err(Unanswered::Refused)?;
    server.kept.learn(game, &a);
    Ok(a)
}

/// The answer for `pos` ([`known_or_searched`]) as the API's JSON.
async fn answer(server: &Server, pos: Position, rules: Rules) -> Response {
    let game = Game::new(pos.pits(), rules);
    let entry = server.catalog.get(pos.pits(), rules);
    let answer = match known_or_searched(server, entry, &game, pos).await {
        Ok(a) => a,
        Err(Unanswered::Refused(refusal)) => return refused(&refusal),
        Err(Unanswered::Failed(e)) => {
            return error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string())
        }
    };
    json(
        StatusCode::OK,
        answer_json(answer, &entry.slug, entry.note.as_deref()),
    )
}

/// The answer's JSON object, its moves best first (a stable sort: equal
/// values stay in house order).
fn answer_json(mut answer: Answer, slug: &str, note: Option<&str>) -> Vec<u8> {
    answer.moves.sort_by_key(|m| std::cmp::Reverse(m.value));
    let mut out = Vec::with_capacity(512);
    answer.write(&mut out, slug, note);
    out
}

/// A search's refusal: 503 with the reason (and when to retry, for busy
/// workers), or 500 for a failure.
fn refused(refusal: &Refusal) -> Response {
    let status = match refusal {
        Refusal::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    };
    let mut response = error(status, &refusal.reason());
    if let Refusal::Busy { .. } = refusal {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// A request's parameters, checked against the names a route takes.
struct Params(Vec<(String, String)>);

impl Params {
    /// The `name=value` pairs of the query string (form-decoded: `+` is a
    /// space). A name the route does not take, or one given twice, is an
    /// error, so that a typo is not silently ignored.
    fn parse(raw: Option<&str>, names: &[&str]) -> Result<Params, String> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            if !names.contains(&k.as_ref()) {
                return Err(format!(
                    "unknown parameter '{k}': this request takes {}",
                    names.join(", ")
                ));
            }
            if pairs.iter().any(|(n, _)| *n == k) {
                return Err(format!("parameter '{k}' given twice"));
            }
            pairs.push((k.into_owned(), v.into_owned()));
        }
        Ok(Params(pairs))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The parameter `name` as given (empty when missing).
    fn text(&self, name: &str) -> &str {
        self.get(name).unwrap_or("")
    }

    /// The position, read as `kalah query` reads its argument, failing with
    /// the same message.
    fn position(&self) -> Result<Position, String> {
        let Some(text) = self.get("position") else {
            return Err(
                "missing parameter 'position' (e.g. position=4+4+4+4+4+4+0+4+4+4+4+4+4+0+S)"
                    .to_string(),
            );
        };
        crate::service::parse_position(text).map_err(|e| e.to_string())
    }

    /// `rules` (std or ec, default std) and `end` (sweep, delayed or
    /// no-sweep, default sweep): `kalah`'s `--empty-capture` and `--end`.
    fn rules(&self) -> Result<Rules, String> {
        let capture = match self.get("rules").unwrap_or("std") {
            "std" => CaptureRule::Standard,
            "ec" => CaptureRule::Empty,
            other => {
                return Err(format!(
                    "rules '{other}': expected std (standard capture) or ec (empty capture)"
                ))
            }
        };
        let end = match self.get("end").unwrap_or("sweep") {
            "sweep" => EndRule::Sweep,
            "delayed" => EndRule::Delayed,
            "no-sweep" => EndRule::NoSweep,
            other => {
                return Err(format!(
                    "end '{other}': expected sweep, delayed or no-sweep"
                ))
            }
        };
        Ok(Rules { capture, end })
    }

    /// A required parameter, `what` saying what it gives.
    fn required(&self, name: &str, what: &str) -> Result<&str, String> {
        self.get(name)
            .ok_or_else(|| format!("missing parameter '{name}' ({what})"))
    }

    /// A required whole-number parameter, `what` saying what it counts.
    fn number(&self, name: &str, what: &str) -> Result<usize, String> {
        let text = self.required(name, what)?;
        text.trim()
            .parse()
            .map_err(|_| format!("{name} '{text}' is not {what}"))
    }
}

/// 413 for a request with a body: every route is a GET, and a body would
/// be read for nothing (or left in the connection).
async fn no_body(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let has_body = headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    if has_body {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "requests to this server have no body",
        );
    }
    next.run(request).await
}

/// 404 for every path but the routes'.
async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no such page: the page is at /, the API under /api/v1/ (query, solve, play, analyze)",
    )
}

/// A JSON response.
fn json(status: StatusCode, body: Vec<u8>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(body),
    )
        .into_response()
}

/// `{"error": msg}` with `status`.
fn error(status: StatusCode, msg: &str) -> Response {
    #[derive(Serialize)]
    struct Failure<'a> {
        error: &'a str,
    }
    let mut out = Vec::with_capacity(msg.len() + 16);
    write_json(&mut out, &Failure { error: msg });
    json(status, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_decoded_checked_and_defaulted() {
        let p = Params::parse(
            Some("position=1+0+1+0+S&rules=ec"),
            &["position", "rules", "end"],
        )
        .expect("good parameters");
        assert_eq!(p.get("position"), Some("1 0 1 0 S"));
        assert_eq!(p.rules(), Ok(Rules::EMPTY_CAPTURE));
        let p = Params::parse(Some("end=no-sweep"), &["end", "rules"]).expect("good");
        assert_eq!(
            p.rules(),
            Ok(Rules {
                capture: CaptureRule::Standard,
                end: EndRule::NoSweep
            })
        );
        assert_eq!(
            Params::parse(None, &["rules"]).map(|p| p.rules()),
            Ok(Ok(Rules::STANDARD))
        );
        let typo = Params::parse(Some("postion=1"), &["position"]).err();
        assert_eq!(
            typo.as_deref(),
            Some("unknown parameter 'postion': this request takes position")
        );
        let twice = Params::parse(Some("rules=std&rules=ec"), &["rules"]).err();
        assert_eq!(twice.as_deref(), Some("parameter 'rules' given twice"));
        let p = Params::parse(Some("rules=EC&house=%33"), &["rules", "house"]).expect("parsed");
        assert!(p.rules().is_err_and(|e| e.starts_with("rules 'EC'")));
        assert_eq!(p.number("house", "a house number"), Ok(3));
        assert!(p
            .number("seeds", "a number of seeds")
            .is_err_and(|e| e.contains("missing parameter 'seeds'")));
    }
}
