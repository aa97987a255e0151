import { EventEmitter } from 'node:events';
import { Logger } from '@svc/logging';
import { JobConnections } from './job-connections';

class FakeRedis extends EventEmitter {
  quit = jest.fn().mockResolvedValue('OK');
  disconnect = jest.fn();
}
const made: FakeRedis[] = [];
jest.mock('ioredis', () => jest.fn().mockImplementation(() => made[made.push(new FakeRedis()) - 1]));

describe('JobConnections', () => {
  it('logs an outage once per connection until it is ready again, and closes every connection it opened', async () => {
    const logger = { error: jest.fn() } as unknown as Logger;
    const connections = new JobConnections('redis://127.0.0.1:1', logger, 'test job queue');
    const queue = connections.connect('queue') as unknown as FakeRedis;
    const worker = connections.connect('worker') as unknown as FakeRedis;
    queue.emit('error', new Error('ECONNREFUSED'));
    queue.emit('error', new Error('ECONNREFUSED'));
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith({ role: 'queue', err: 'ECONNREFUSED' }, 'test job queue: redis unavailable');
    queue.emit('ready');
    queue.emit('error', new Error('ECONNRESET'));
    expect(logger.error).toHaveBeenCalledTimes(2);
    worker.quit.mockRejectedValueOnce(new Error('closed'));
    await connections.close();
    expect(queue.quit).toHaveBeenCalled();
    expect(worker.disconnect).toHaveBeenCalled();
  });
});
