//! The page of `kalah serve` in a real browser: headless Chromium, driven
//! over W3C WebDriver by chromedriver (Debian's `chromium` and
//! `chromium-driver`). It loads the page on a position inside the tables,
//! reads each house's value, clicks a house, sees the values change,
//! undoes, sees the first values again, and saves a screenshot.
//!
//! `#[ignore]`d: it needs the browser, which a machine with only the Rust
//! toolchain lacks; `.ci/run` installs both packages and runs it with
//! `cargo test --test serve_browser -- --ignored`. `CHROMIUM` and
//! `CHROMEDRIVER` name other binaries; the screenshot goes to
//! `KALAH_SCREENSHOT`, else `serve-browser.png` in Cargo's test scratch
//! directory (its path is printed).
//!
//! Why WebDriver from Rust (fantoccini) rather than playwright-core from
//! npm: the test runs in the same `cargo test` as the others, needs no
//! Node toolchain or npm install in CI, and speaks the W3C protocol to
//! Debian's own chromedriver, so the browser and its driver come from one
//! package source, matched in version.

mod serve_common;

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use kalah::Rules;
use serde_json::json;
use serve_common::http::encode;
use serve_common::{tables, Server};

/// Inside 12-seed tables (12 seeds on the board), South to move, whose
/// moves have different values.
const POSITION: &str = "2 1 0 3 1 2 20 0 1 1 1 0 0 10 S";

/// chromedriver, killed when dropped.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn program(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until the page has finished the render numbered `n` (the page
/// counts them in `body[data-renders]`, and sets `data-ready` once the
/// answer is drawn).
async fn rendered(c: &Client, n: u32) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = c
            .execute(
                "return [document.body.dataset.ready || '', document.body.dataset.renders || ''];",
                vec![],
            )
            .await
            .expect("read the page's state");
        if v == json!(["1", n.to_string()]) {
            return;
        }
        assert!(Instant::now() < deadline, "render {n} never finished: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The values shown under the houses, in document order, and the status
/// line up to where it says how long the answer took.
async fn shown(c: &Client) -> (Vec<String>, String) {
    let mut values = Vec::new();
    for e in c
        .find_all(Locator::Css("text.value"))
        .await
        .expect("value labels")
    {
        values.push(e.text().await.expect("a value's text"));
    }
    let status = c
        .find(Locator::Id("status"))
        .await
        .expect("status")
        .text()
        .await
        .expect("status text");
    let status = status.split(" \u{2014} ").next().unwrap_or("").to_string();
    (values, status)
}

#[test]
#[ignore = "needs Chromium and chromedriver (Debian: chromium, chromium-driver); .ci/run installs them and runs it"]
fn the_page_plays_a_house_and_undoes_it() {
    browse("1100,900", "serve-browser.png", |c, url, shot| {
        Box::pin(play_and_undo(c, url, shot))
    });
}

/// Issue 53: at 390 px wide (a phone) the page scrolled sideways (the
/// position box was 495 px wide) and the move values rendered at about
/// 9 px. Now nothing is wider than the window and every value is drawn at
/// 12 px or more.
#[test]
#[ignore = "needs Chromium and chromedriver (Debian: chromium, chromium-driver); .ci/run installs them and runs it"]
fn the_page_fits_a_phone() {
    browse("390,844", "serve-browser-390.png", |c, url, shot| {
        Box::pin(fits_a_phone(c, url, shot))
    });
}

/// The page reviews a pasted game (issue 53): South's 5 gives away 4 (the
/// best, 2, keeps +18), then both sides play perfectly to the end. The
/// table shows one row a sowing, the mistake marked; a row's click shows
/// its position. At a phone's width too.
#[test]
#[ignore = "needs Chromium and chromedriver (Debian: chromium, chromium-driver); .ci/run installs them and runs it"]
fn the_page_reviews_a_pasted_line() {
    for (window, name) in [
        ("1100,900", "serve-review.png"),
        ("390,844", "serve-review-390.png"),
    ] {
        browse(window, name, |c, url, shot| Box::pin(reviews(c, url, shot)));
    }
}

/// Issue 53: the opening is answered from the book at once. Kalah(4,3)
/// with a book of 4 turns: the start and each of the next three sowings
/// (the first playable house each time) say "from the opening book",
/// each answer within 50 ms.
#[test]
#[ignore = "needs Chromium and chromedriver (Debian: chromium, chromium-driver); .ci/run installs them and runs it"]
fn the_page_plays_the_opening_from_the_book() {
    let build_book = |dir: &std::path::Path| {
        kalah_in(
            dir,
            &[
                "book", "build", "--pits", "4", "--seeds", "3", "--turns", "4",
            ],
        );
    };
    browse_at(
        "1100,900",
        "serve-book.png",
        "3 3 3 3 0 3 3 3 3 0 S",
        build_book,
        |c, url, shot| Box::pin(opening_from_book(c, url, shot)),
    );
}

/// Issue 53 with the shipped books: each game of the page (Kalah(6,3),
/// (6,4) and (6,5), both rules) from its start over the default 22-seed
/// tables, the server's table directory holding no book of its own. In
/// standard Kalah(6,4), South's first turn (3, an extra turn, then 1) and
/// North's (3, an extra turn); in the others, South's house that ends in
/// the store (an extra turn), then the first playable house, to North's
/// turn. Each position says "from the opening book", within 50 ms. (Where
/// the third turn starts, the book holds the value, not every move's: the
/// page searches there.)
#[test]
#[ignore = "needs Chromium and chromedriver (Debian: chromium, chromium-driver); .ci/run installs them and runs it"]
fn the_page_plays_the_first_turns_of_every_game_from_the_shipped_books() {
    let default_tables = |dir: &std::path::Path| {
        kalah_in(dir, &["build", "--pits", "6", "--max-seeds", "22"]);
        kalah_in(
            dir,
            &[
                "build",
                "--pits",
                "6",
                "--max-seeds",
                "22",
                "--empty-capture",
            ],
        );
    };
    browse_at(
        "1100,900",
        "serve-book-6.png",
        "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S",
        default_tables,
        |c, url, shot| Box::pin(plays_every_opening(c, url, shot)),
    );
}

async fn plays_every_opening(c: Client, url: String, shot: PathBuf) {
    let house = |side: &str, n: u32| {
        format!(r#"g.house[data-side="{side}"][data-house="{n}"][role="button"]"#)
    };
    let first = r#"g.house[role="button"]"#.to_string();
    // The server's address, from the URL of the page's first position.
    let base = url.split_once("/?").expect("the page's URL").0;
    for seeds in 3..=5 {
        for rules in ["std", "ec"] {
            let start =
                format!("{seeds} {seeds} {seeds} {seeds} {seeds} {seeds} 0 ").repeat(2) + "S";
            let clicks = if (seeds, rules) == (4, "std") {
                vec![house("S", 3), house("S", 1), house("N", 3)]
            } else {
                vec![house("S", 7 - seeds), first.clone()]
            };
            let clicks: Vec<&str> = clicks.iter().map(String::as_str).collect();
            let url = format!("{base}/?position={}&rules={rules}", encode(&start));
            eprintln!("Kalah(6,{seeds}) {rules}");
            plays_from_book(c.clone(), url, shot.clone(), &clicks).await;
        }
    }
}

/// Runs `kalah ARGS --tables DIR`, which must succeed.
fn kalah_in(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .arg("--tables")
        .arg(dir)
        .output()
        .expect("run kalah");
    assert!(
        out.status.success(),
        "kalah {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn opening_from_book(c: Client, url: String, shot: PathBuf) {
    let first = r#"g.house[role="button"]"#;
    plays_from_book(c, url, shot, &[first, first, first]).await;
}

/// Each position from the page's first on, clicking `clicks` (CSS
/// selectors of houses) in turn, says "from the opening book" within 50 ms.
async fn plays_from_book(c: Client, url: String, shot: PathBuf, clicks: &[&str]) {
    c.goto(&url).await.expect("load the page");
    for n in 1..=clicks.len() as u32 + 1 {
        rendered(&c, n).await;
        let status = c
            .find(Locator::Id("status"))
            .await
            .expect("status")
            .text()
            .await
            .expect("status text");
        assert!(
            status.contains("from the opening book"),
            "sowing {n}: {status}"
        );
        let ms: f64 = status
            .rsplit(", ")
            .next()
            .and_then(|t| t.strip_suffix(" ms."))
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no time in {status}"));
        assert!(ms < 50.0, "sowing {n}: {status}");
        if let Some(house) = clicks.get(n as usize - 1) {
            c.find(Locator::Css(house))
                .await
                .expect("a playable house")
                .click()
                .await
                .expect("click a house");
        }
    }
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(&shot, &png).expect("write the screenshot");
}

/// Pastes a line into the review box, reviews it, checks the rows, clicks
/// the third row and sees its position.
async fn reviews(c: Client, url: String, shot: PathBuf) {
    c.goto(&url).await.expect("load the page");
    rendered(&c, 1).await;
    let line = c.find(Locator::Id("line")).await.expect("the review box");
    line.send_keys("5 4 1 3 4.2 2 3")
        .await
        .expect("type the line");
    c.find(Locator::Css("#review button[type=submit]"))
        .await
        .expect("the review button")
        .click()
        .await
        .expect("click review");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = c
            .execute("return document.body.dataset.reviewed || '';", vec![])
            .await
            .expect("read the page's state");
        if v == json!("8") {
            break;
        }
        assert!(Instant::now() < deadline, "the review never came: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let rows = c
        .find_all(Locator::Css("#review-out tbody tr"))
        .await
        .expect("rows");
    assert_eq!(rows.len(), 8);
    let mut first = Vec::new();
    for td in rows[0].find_all(Locator::Css("td")).await.expect("cells") {
        first.push(td.text().await.expect("a cell's text"));
    }
    assert_eq!(first, ["1", "S", "5", "+18", "+14", "4", "2"]);
    assert_eq!(
        rows[0].attr("class").await.expect("class").as_deref(),
        Some("mistake")
    );
    let mistakes = c
        .find_all(Locator::Css("#review-out tr.mistake"))
        .await
        .expect("mistake rows");
    assert_eq!(mistakes.len(), 1);
    let summary = c
        .find(Locator::Css("#review-out .summary"))
        .await
        .expect("summary")
        .text()
        .await
        .expect("its text");
    assert!(
        summary.contains("South: 1 mistake, 4 given away; North: no mistakes.")
            && summary.contains("Final score +14 for South."),
        "{summary}"
    );
    let widths = c
        .execute(
            "return [document.documentElement.clientWidth, document.documentElement.scrollWidth];",
            vec![],
        )
        .await
        .expect("widths");
    assert!(
        widths[1].as_f64() <= widths[0].as_f64(),
        "the page scrolls sideways: {widths}"
    );
    let table = c
        .execute(
            "const o = document.getElementById('review-out'); return [o.clientWidth, o.scrollWidth];",
            vec![],
        )
        .await
        .expect("the table's widths");
    assert!(
        table[1].as_f64() <= table[0].as_f64(),
        "the review table scrolls sideways: {table}"
    );
    // The third row: South to move after 5-4.
    rows[2].click().await.expect("click a row");
    rendered(&c, 2).await;
    let shown = c
        .find(Locator::Id("position"))
        .await
        .expect("position box")
        .prop("value")
        .await
        .expect("its value");
    assert_eq!(shown.as_deref(), Some("2 0 0 3 0 3 20 0 1 1 0 0 0 12 S"));
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(&shot, &png).expect("write the screenshot");
    eprintln!("screenshot: {}", shot.display());
}

/// What a browser check does with its session, the page's URL and the
/// screenshot's path.
type Check =
    fn(Client, String, PathBuf) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Starts a server over 12-seed tables and headless Chromium with a window
/// of `window` ("W,H") pixels, and runs `check` on the page at POSITION;
/// its screenshot goes to `KALAH_SCREENSHOT` (with `name` in Cargo's test
/// scratch directory by default).
fn browse(window: &str, name: &str, check: Check) {
    browse_at(window, name, POSITION, |_| {}, check);
}

/// [`browse`] on the page of `position`, after `prepare` has added to the
/// table directory.
fn browse_at(
    window: &str,
    name: &str,
    position: &str,
    prepare: impl FnOnce(&std::path::Path),
    check: Check,
) {
    let dir = tables(
        // One directory per test: two tests may share a window size.
        &format!("browser-{}", name.trim_end_matches(".png")),
        6,
        12,
        &[Rules::STANDARD],
    );
    prepare(&dir);
    let server = Server::start(&dir, &[]);
    let port = free_port();
    let driver = Command::new(program("CHROMEDRIVER", "chromedriver"))
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(Driver)
        .expect("start chromedriver (Debian: apt-get install chromium-driver)");
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    let shot = std::env::var_os("KALAH_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mut options = json!({
            "binary": program("CHROMIUM", "/usr/bin/chromium"),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", format!("--window-size={window}")],
        });
        // Chromium keeps a window at least about 500 px wide: a phone's
        // width is its device emulation's (the viewport a phone gives).
        let (w, h) = window.split_once(',').expect("W,H");
        let (w, h): (u32, u32) = (w.parse().expect("W"), h.parse().expect("H"));
        if w < 500 {
            options["mobileEmulation"] =
                json!({"deviceMetrics": {"width": w, "height": h, "pixelRatio": 3.0}});
        }
        let mut caps = serde_json::Map::new();
        caps.insert("goog:chromeOptions".to_string(), options);
        let c = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a WebDriver session in headless Chromium");
        let url = format!(
            "http://{}/?position={}&rules=std",
            server.addr,
            encode(position)
        );
        // The checks run as a task of their own, so that the session (and
        // the browser) is closed even when one of them fails.
        let outcome = tokio::spawn(check(c.clone(), url, shot)).await;
        c.close().await.expect("close the session");
        if let Err(failure) = outcome {
            std::panic::resume_unwind(failure.into_panic());
        }
    });
    drop(driver);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Loads the page at `url` in a phone-sized window: the page is no wider
/// than the window, the position box fits, every move value is at least
/// 12 px high; saves a screenshot to `shot`.
async fn fits_a_phone(c: Client, url: String, shot: PathBuf) {
    c.goto(&url).await.expect("load the page");
    rendered(&c, 1).await;
    let widths = c
        .execute(
            "return [document.documentElement.clientWidth, document.documentElement.scrollWidth, \
             document.getElementById('position').getBoundingClientRect().right];",
            vec![],
        )
        .await
        .expect("the page's widths");
    let (client, scroll, input) = (
        widths[0].as_f64().unwrap_or(0.0),
        widths[1].as_f64().unwrap_or(f64::MAX),
        widths[2].as_f64().unwrap_or(f64::MAX),
    );
    assert!(client > 300.0 && client <= 390.0, "window {client} px");
    assert!(
        scroll <= client,
        "the page scrolls sideways: {scroll} px in {client} px"
    );
    assert!(
        input <= client,
        "the position box ends at {input} px of {client}"
    );
    let heights = c
        .execute(
            "return Array.from(document.querySelectorAll('text.value'), \
             (t) => t.getBoundingClientRect().height);",
            vec![],
        )
        .await
        .expect("the values' heights");
    let heights: Vec<f64> = heights
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|h| h.as_f64())
        .collect();
    assert!(heights.len() >= 4, "values shown: {heights:?}");
    assert!(
        heights.iter().all(|&h| h >= 12.0),
        "move values drawn under 12 px high: {heights:?}"
    );
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(&shot, &png).expect("write the screenshot");
    eprintln!("screenshot: {}", shot.display());
}

/// Loads the page at `url`, plays a house, sees the values change, undoes,
/// sees them come back, and saves a screenshot to `shot`.
async fn play_and_undo(c: Client, url: String, shot: PathBuf) {
    c.goto(&url).await.expect("load the page");
    rendered(&c, 1).await;
    let before = shown(&c).await;
    assert!(before.0.len() >= 4, "values shown: {before:?}");
    assert!(before.1.contains("Value +"), "{before:?}");

    // Click South's first house that has seeds.
    let house = c
        .find(Locator::Css(r#"g.house[data-side="S"][role="button"]"#))
        .await
        .expect("a playable house");
    let which = house.attr("data-house").await.expect("attr");
    house.click().await.expect("click a house");
    rendered(&c, 2).await;
    let after = shown(&c).await;
    assert_ne!(
        after, before,
        "the values did not change after playing house {which:?}"
    );
    let text = c
        .find(Locator::Id("position"))
        .await
        .expect("position box")
        .prop("value")
        .await
        .expect("its value");
    assert_ne!(text.as_deref(), Some(POSITION));
    assert!(
        c.current_url()
            .await
            .expect("url")
            .as_str()
            .contains("position="),
        "the position is kept in the URL"
    );

    c.find(Locator::Id("undo"))
        .await
        .expect("undo button")
        .click()
        .await
        .expect("click undo");
    rendered(&c, 3).await;
    assert_eq!(shown(&c).await, before, "undo brings the first values back");

    let png = c.screenshot().await.expect("screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    std::fs::write(&shot, &png).expect("write the screenshot");
    eprintln!("screenshot: {}", shot.display());
}
