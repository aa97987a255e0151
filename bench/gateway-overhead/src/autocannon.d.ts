// The part of autocannon@8's programmatic API this benchmark uses (the package ships no types).
declare module 'autocannon' {
  import { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      /** Request templates taken in turn; `setupRequest` may rewrite each request before it is sent. */
      requests?: { setupRequest?: (req: RequestData) => RequestData }[];
    }
    interface RequestData {
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: string | Buffer;
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      totalCompletedRequests: number;
      statusCodeStats: Record<string, { count: number }>;
    }
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options, callback: (err: Error | null, result: autocannon.Result) => void): autocannon.Instance;
  export = autocannon;
}
