/** Jest setupFiles of the `sqlite` project: says so explicitly, whatever the shell exported. */
import { BACKEND_ENV } from './test-backend';

process.env[BACKEND_ENV] = 'sqlite';
