//! The cluster state as the CLUSTER handlers reach it: the standalone error when there is none, the lazy refresh, and topology changes made between two refreshes.

use crate::cluster::ClusterState;
use crate::cmd::args::preview;
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;
use crate::server::Server;

/// `This instance has cluster support disabled`: every cluster command in standalone mode.
const DISABLED: &str = "ERR This instance has cluster support disabled";

/// The cluster state, or the standalone error.
pub(super) fn state<'a>(ctx: &'a mut Ctx) -> Result<&'a mut ClusterState, Frame> {
    ctx.srv.cluster.as_mut().ok_or_else(|| Frame::err(DISABLED))
}

/// Runs `f` on the cluster state as a topology change: the state is
/// brought up to date before (so a minority period lasts until now, as
/// Redis' cron would have seen it) and after (`CLUSTER_TODO_UPDATE_STATE`).
pub(super) fn change<R>(ctx: &mut Ctx, f: impl FnOnce(&mut ClusterState) -> R) -> Result<R, Frame> {
    if ctx.srv.cluster.is_none() {
        return Err(Frame::err(DISABLED));
    }
    refresh(ctx.srv);
    let cl = ctx.srv.cluster.as_mut().expect("checked above");
    let r = f(cl);
    cl.dirty = true;
    refresh(ctx.srv);
    Ok(r)
}

pub(super) fn unknown_node(id: &[u8]) -> Frame {
    Frame::err(format!("ERR Unknown node {}", preview(id, usize::MAX)))
}

/// Brings the lazily computed cluster state up to date.
pub fn refresh(srv: &mut Server) {
    let now = srv.now_ms();
    let boot = now - (srv.clock.now_us() / 1000) as i64;
    let (full, timeout) = (
        srv.config.cluster_require_full_coverage,
        srv.config.cluster_node_timeout,
    );
    if let Some(c) = srv.cluster.as_mut() {
        c.update_state(now, boot, full, timeout);
    }
}

/// The cluster state and the node `id` names (CLUSTER REPLICAS, REPLICATE,
/// FORGET), or the standalone or unknown-node error.
pub(super) fn state_and_node<'a>(
    ctx: &'a mut Ctx,
    id: &[u8],
) -> Result<(&'a mut ClusterState, usize), Frame> {
    let cl = state(ctx)?;
    let n = cl.lookup_node(id).ok_or_else(|| unknown_node(id))?;
    Ok((cl, n))
}
