from ampenv.cli import main

main()
