use serde::Deserialize;
use std::env;

#[derive(Debug, Deserialize)]
struct Note {
    id: u64,
    title: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = env::var("NOTES_API").unwrap_or_else(|_| "http://localhost:5000".to_string());
    let home = env::var("HOME")?;
    println!("config dir: {home}/.config/acme-notes");
    let notes: Vec<Note> = reqwest::get(format!("{base}/notes")).await?.json().await?;
    for n in notes {
        println!("{:>6} {}", n.id, n.title);
    }
    Ok(())
}
