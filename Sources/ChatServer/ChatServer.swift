// ChatServer
