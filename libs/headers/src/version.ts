/**
 * The service revision sent in `x-svc-version`: a date-time style string. Set SVC_VERSION at
 * build or deploy time; otherwise the boot time of the process is used.
 */
export const SERVICE_VERSION: string = process.env.SVC_VERSION ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z');
