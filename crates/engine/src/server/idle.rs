//! `timeout`: clients idle longer than it are closed by the cron (`clientsCronHandleTimeout`), in whole seconds as Redis counts them.

use super::Server;

/// Queues for closing every client idle more than `timeout` seconds, as
/// Redis' cron does: never a blocked client (its command's own timeout
/// rules), a subscriber, or a MONITOR. Redis compares Unix seconds, so a
/// client is closed once `now - last > timeout` in whole seconds.
pub(crate) fn close_idle_clients(srv: &mut Server) {
    let timeout = srv.config.timeout;
    if timeout <= 0 {
        return;
    }
    let base_us = srv.clock.unix_us() - srv.clock.now_us();
    let now_s = (srv.clock.unix_us() / 1_000_000) as i64;
    let idle: Vec<u64> = srv
        .client_list
        .iter()
        .filter(|(id, e)| {
            let last_s = ((base_us + e.last_interaction_us) / 1_000_000) as i64;
            !e.subscribed()
                && !e.closing
                && now_s - last_s > timeout
                && !srv.blocking.is_blocked(**id)
                && !srv.monitors.contains(id)
                && !srv.killed.contains(id)
        })
        .map(|(id, _)| *id)
        .collect();
    srv.killed.extend(idle);
}
