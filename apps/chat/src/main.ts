import 'reflect-metadata';
import { runService } from '@svc/messaging';
import { AppModule } from './app.module';
import { loadChatConfig } from './config';

runService('chat', loadChatConfig, (config) => AppModule.forConfig(config));
