import 'reflect-metadata';
import { runService } from '@svc/messaging';
import { AppModule } from './app.module';
import { loadServiceConfig } from './config';

runService(
  'billing',
  () => loadServiceConfig(),
  (config) => AppModule.forConfig(config),
);
