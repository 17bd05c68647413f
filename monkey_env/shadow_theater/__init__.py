"""The Shadow Theater (Space Cowboys): a 2-player worker-placement duel around the Monkey King,
played in rounds until one player holds 2 Lanterns. Rules: docs/games/shadow_theater.md."""
