"""End-to-end stories that cross packages: crashes, concurrency, damage, hostile input, a newcomer's first hour, the README's set-ups."""
