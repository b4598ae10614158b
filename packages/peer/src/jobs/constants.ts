/**
 * The record domains and maps of the job records. They live with the guards of the docs that hold them
 * (coord/constants.ts); this part writes and reads those records.
 */
export { ANNOUNCEMENT_DOMAIN, FINAL_DOMAIN, FINAL_MAP, PEERS_MAP, PROFILE_DOMAIN } from '../coord/index.js'
