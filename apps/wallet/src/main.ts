import 'reflect-metadata';
import { runService } from '@svc/messaging';
import { AppModule } from './app.module';
import { loadServiceConfig } from './config';

runService('wallet', loadServiceConfig, (config) => AppModule.forConfig(config));
