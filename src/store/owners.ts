// Names the store hands out and how it tells a holder that died: the same for every
// implementation, since a delivery id goes out in every request and a lease or lock owner names a
// process on a host.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { isProcessRunning } from '../host/processes.ts';

/** Time-ordered and unguessable: `dlv_` + 9 base-36 digits of ms + 16 random base64url chars. */
export function newDeliveryId(now: number): string {
  return `dlv_${now.toString(36).padStart(9, '0')}${randomBytes(12).toString('base64url')}`;
}

/** A sender's name on its leases: host and pid, so a rerun can tell a dead sender's leases. */
export function newLeaseOwner(role: string): string {
  return `${os.hostname()}/${process.pid}/${role}-${randomBytes(4).toString('hex')}`;
}

/** Whether a lease owner (see newLeaseOwner) is a process of this host that no longer runs. */
export function isDeadOwnerOnThisHost(owner: string): boolean {
  const [host, pid] = owner.split('/');
  return host === os.hostname() && !!pid && !isAlive(Number(pid));
}

/** Whether the process `pid` of this host runs (a zombie does not: see isProcessRunning). */
export const isAlive = isProcessRunning;
