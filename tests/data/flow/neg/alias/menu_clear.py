import sys
from os import name as os_name
from os import system as run

OPTIONS = {"1": "List tasks", "2": "Add task", "q": "Quit"}


def clear():
    run("cls" if os_name == "nt" else "clear")


def menu(tasks):
    while True:
        clear()
        for i, t in enumerate(tasks, 1):
            print(f"{i}. {t}")
        print()
        for key, label in OPTIONS.items():
            print(f"[{key}] {label}")
        choice = input("> ").strip()
        if choice == "2":
            tasks.append(input("task: "))
        elif choice == "q":
            return


if __name__ == "__main__":
    menu(sys.argv[1:])
