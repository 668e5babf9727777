import { InvalidDashboardOptionsError } from '../lib';
import { QueueDashboardModule } from '../lib/dashboard';

describe('QueueDashboardModule.forRoot options', () => {
  it.each([
    [{ path: '' }, 'path'],
    [{ path: '/queues/:id' }, 'path'],
    [{ path: '/a b' }, 'path'],
    [{ path: '/<x>' }, 'path'],
    [{ guards: [{}] }, 'guards'],
    [{ guards: [class NotAGuard {}] }, 'guards'],
    [{ authorize: 'yes' }, 'authorize'],
    [{ redact: { data: 'all' } }, 'redact.data'],
    [{ redact: { key: 'all' } }, 'redact.key'],
    [{ redact: { email: true } }, 'redact.email'],
    [{ redact: true }, 'redact'],
    [{ allowedOrigins: ['ops.example.com'] }, 'allowedOrigins'],
    [{ allowedHosts: 'ops.example.com' }, 'allowedHosts'],
    [{ allowedHosts: ['ops.example.com:443'] }, 'allowedHosts'],
    [{ allowedHosts: ['https://ops.example.com'] }, 'allowedHosts'],
    [{ allowedHosts: ['*.example.com'] }, 'allowedHosts'],
    [{ allowedHosts: ['ops.example.com/queues'] }, 'allowedHosts'],
    [{ allowedHosts: [''] }, 'allowedHosts'],
    [{ allowedHosts: [42] }, 'allowedHosts'],
    [{ refreshInterval: 10 }, 'refreshInterval'],
    [{ chartMinutes: 1.5 }, 'chartMinutes'],
  ])('%j fails forRoot with InvalidDashboardOptionsError naming %s', (options, option) => {
    let error: unknown;
    try {
      QueueDashboardModule.forRoot(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidDashboardOptionsError);
    expect((error as InvalidDashboardOptionsError).option).toBe(option);
  });

  it('mounts at the path given, with defaults for the rest', () => {
    const module = QueueDashboardModule.forRoot({ path: 'ops/queues/', guards: [{ canActivate: () => true }] });
    expect(module.controllers).toHaveLength(1);
    expect(Reflect.getMetadata('path', module.controllers![0])).toBe('/ops/queues');
    expect(module.providers).toContainEqual(
      expect.objectContaining({ useValue: expect.objectContaining({ readOnly: false, refreshInterval: 2000, chartMinutes: 60 }) }),
    );
  });

  it('answers the names of allowedHosts and of allowedOrigins, in the form a Host header is compared in', () => {
    const module = QueueDashboardModule.forRoot({
      allowedHosts: ['Ops.Example.COM.', 'queue-box'],
      allowedOrigins: ['https://proxy.example:8443', 'http://[::1]:3000'],
    });
    expect(module.providers).toContainEqual(
      expect.objectContaining({
        useValue: expect.objectContaining({ allowedHosts: ['ops.example.com', 'queue-box', 'proxy.example', '[::1]'] }),
      }),
    );
  });
});
